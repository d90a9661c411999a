//! Command-line flags of the examples (`digits`, `mnist_cnn`, `resnet`): `--name value`
//! pairs and `--switch`es, each written into the variable the example names for it.

use std::str::FromStr;

/// A variable a flag's value is parsed into.
pub trait FlagValue {
    /// Parses `v` into `self`; the error says why (the caller adds the flag's name).
    fn set(&mut self, v: &str) -> Result<(), String>;
    /// Whether the flag is followed by a value (`false` for switches such as `--profile`).
    fn takes_value(&self) -> bool {
        true
    }
}

/// A switch: present means `true`, and it takes no value.
impl FlagValue for bool {
    fn set(&mut self, _: &str) -> Result<(), String> {
        *self = true;
        Ok(())
    }
    fn takes_value(&self) -> bool {
        false
    }
}

macro_rules! flag_value {
    ($($t:ty),*) => {$(
        impl FlagValue for $t {
            fn set(&mut self, v: &str) -> Result<(), String> {
                *self = parse(v)?;
                Ok(())
            }
        }
        impl FlagValue for Option<$t> {
            fn set(&mut self, v: &str) -> Result<(), String> {
                *self = Some(parse(v)?);
                Ok(())
            }
        }
    )*};
}
flag_value!(usize, u64, f64, String);

fn parse<T: FromStr>(v: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    v.parse().map_err(|e| format!("{v:?}: {e}"))
}

/// Reads `--name value` pairs from the command line into the variables of `flags`
/// (`("--epochs", &mut cfg.epochs)`, …). `--help` prints `usage` and exits; an unknown
/// flag, a missing value or one that does not parse is an `Err` naming the flag.
pub fn parse_flags(usage: &str, flags: &mut [(&str, &mut dyn FlagValue)]) -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if flag == "--help" || flag == "-h" {
            println!("{usage}");
            std::process::exit(0);
        }
        let Some((_, var)) = flags.iter_mut().find(|(name, _)| *name == flag) else {
            return Err(format!("unknown argument {flag} (try --help)"));
        };
        if !var.takes_value() {
            var.set("")?;
            i += 1;
            continue;
        }
        let value = args
            .get(i + 1)
            .ok_or_else(|| format!("{flag} needs a value (try --help)"))?;
        var.set(value).map_err(|e| format!("{flag} {e}"))?;
        i += 2;
    }
    Ok(())
}
