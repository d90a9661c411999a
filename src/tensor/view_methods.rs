//! The one way view methods are written: once, as the [`TensorView`](crate::TensorView)
//! method, and generated for every other ownership kind.

/// Defines view methods once. Each method is written as the `TensorView<'lt, T, D>`
/// method (its result borrows the buffer for `'lt`, the lifetime named first, so chains
/// on a view bind to a `let`); the macro also gives `Tensor`, `TensorArc`, `TensorMut`
/// and `TensorCow` the same method, with the same attributes and documentation, whose
/// result borrows `self` (`'lt` becomes the lifetime of `&self`) and which calls the
/// view's method on `self.view()`.
///
/// Generic parameters go in square brackets after the name (`fn name[Sh: IntoShape](…)`),
/// one bound on the rank type after the result (`-> … where D: InsertAxis`); `self` is
/// written `&self`.
///
/// ```text
/// view_methods! { 'a;
///     /// The transpose. (Docs with a runnable example.)
///     fn t(&self) -> TensorView<'a, T, D> {
///         self.with_layout(tf::reversed_layout(&self.layout))
///     }
/// }
/// ```
macro_rules! view_methods {
    ($lt:lifetime; $(
        $(#[$attr:meta])*
        fn $name:ident $([$($gen:tt)*])? (&$self:ident $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty
        $(where $wty:ty : $wbound:path)? $body:block
    )*) => {
        impl<$lt, T: $crate::Element, D: $crate::Dimension> $crate::TensorView<$lt, T, D> {
            $( $(#[$attr])* pub fn $name $(<$($gen)*>)? (&$self $(, $arg: $ty)*) -> $ret
                $(where $wty: $wbound)? $body )*
        }
        $crate::tensor::view_methods::view_methods!(@twin [impl<T: $crate::Element, D: $crate::Dimension> $crate::Tensor<T, D>]
            $lt; $( $(#[$attr])* fn $name $([$($gen)*])? (&$self $(, $arg: $ty)*) -> $ret $(where $wty: $wbound)?; )*);
        $crate::tensor::view_methods::view_methods!(@twin [impl<T: $crate::Element, D: $crate::Dimension> $crate::TensorArc<T, D>]
            $lt; $( $(#[$attr])* fn $name $([$($gen)*])? (&$self $(, $arg: $ty)*) -> $ret $(where $wty: $wbound)?; )*);
        $crate::tensor::view_methods::view_methods!(@twin [impl<'b, T: $crate::Element, D: $crate::Dimension> $crate::TensorMut<'b, T, D>]
            $lt; $( $(#[$attr])* fn $name $([$($gen)*])? (&$self $(, $arg: $ty)*) -> $ret $(where $wty: $wbound)?; )*);
        $crate::tensor::view_methods::view_methods!(@twin [impl<'b, T: $crate::Element, D: $crate::Dimension> $crate::TensorCow<'b, T, D>]
            $lt; $( $(#[$attr])* fn $name $([$($gen)*])? (&$self $(, $arg: $ty)*) -> $ret $(where $wty: $wbound)?; )*);
    };
    (@twin [$($head:tt)*] $lt:lifetime; $(
        $(#[$attr:meta])*
        fn $name:ident $([$($gen:tt)*])? (&$self:ident $(, $arg:ident : $ty:ty)*) -> $ret:ty
        $(where $wty:ty : $wbound:path)?;
    )*) => {
        $($head)* {
            $(
                $(#[$attr])*
                #[allow(clippy::needless_lifetimes)]
                pub fn $name<$lt $(, $($gen)*)?>(&$lt $self $(, $arg: $ty)*) -> $ret
                $(where $wty: $wbound)? {
                    $self.view().$name($($arg),*)
                }
            )*
        }
    };
}
pub(crate) use view_methods;

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use std::cell::RefCell;
    use std::panic::{AssertUnwindSafe, catch_unwind};

    thread_local! {
        /// Where the last panic of this thread happened, while a test listens.
        static SEEN: RefCell<Option<Option<(String, String)>>> = const { RefCell::new(None) };
    }

    /// The file and message of the panic `f` raises.
    fn panic_site(f: impl FnOnce()) -> (String, String) {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let site = info.location().map(|l| l.file().to_string()).unwrap_or_default();
            let msg = info.payload().downcast_ref::<String>().cloned().unwrap_or_default();
            SEEN.with(|s| {
                if let Some(slot) = s.borrow_mut().as_mut() {
                    *slot = Some((site, msg));
                }
            });
        }));
        SEEN.with(|s| *s.borrow_mut() = Some(None));
        let r = catch_unwind(AssertUnwindSafe(f));
        std::panic::set_hook(previous);
        assert!(r.is_err(), "expected a panic");
        SEEN.with(|s| s.borrow_mut().take().flatten())
            .expect("the hook saw the panic")
    }

    #[test]
    fn slicing_panics_at_the_callers_line_for_every_kind() {
        let mut a = Tensor::<i32, _>::arange(4);
        let here = file!();
        let sites = [
            panic_site(|| drop(a.slice(s![9]))),
            panic_site(|| drop(a.view().slice(s![9]))),
            panic_site(|| drop(a.clone().into_shared().slice(s![9]))),
            panic_site(|| drop(a.view_mut().slice(s![9]))),
            panic_site(|| drop(a.reshape([4]).unwrap().slice(s![9]))),
            panic_site(|| drop(a.slice_mut(s![..;0]))),
        ];
        for (file, msg) in sites {
            assert_eq!(file, here, "{msg}");
            assert!(msg.starts_with("slice") || msg.contains("index"), "{msg}");
        }
    }
}
