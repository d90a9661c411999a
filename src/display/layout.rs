//! Selection of the shown elements (NumPy's `_leading_trailing`) and the
//! nested bracket / line-wrapping layout (NumPy's `_formatArray`).

use super::PrintValue;

/// The indices of one axis that take part in printing.
#[derive(Clone, Copy, Debug)]
struct AxisSel {
    len: usize,
    /// `Some(e)`: only the first and last `e` indices; `None`: all indices.
    edge: Option<usize>,
}

impl AxisSel {
    fn count(&self) -> usize {
        match self.edge {
            Some(e) => 2 * e,
            None => self.len,
        }
    }

    /// Logical index of the `pos`-th selected item.
    fn index(&self, pos: usize) -> usize {
        match self.edge {
            Some(e) if pos >= e => self.len - 2 * e + pos,
            _ => pos,
        }
    }

    /// Position of logical index `i` among the selected items.
    fn position(&self, i: usize) -> usize {
        match self.edge {
            Some(e) if i >= e => i - (self.len - 2 * e),
            _ => i,
        }
    }
}

/// The shown elements of an array, read once in row-major order.
pub(crate) struct Shown {
    shape: Vec<usize>,
    axes: Vec<AxisSel>,
    values: Vec<PrintValue>,
    summarise: bool,
    edgeitems: usize,
}

impl Shown {
    /// Reads the elements NumPy uses to size the columns (`shape` must be
    /// non-empty with no zero-length axis).
    pub(crate) fn new(
        shape: &[usize],
        summarise: bool,
        edgeitems: usize,
        get: &dyn Fn(&[usize]) -> PrintValue,
    ) -> Self {
        let axes: Vec<AxisSel> = shape
            .iter()
            .map(|&len| AxisSel {
                len,
                // `a[:0]` ++ `a[-0:]` is the whole axis in NumPy.
                edge: (summarise && len > 2 * edgeitems && edgeitems > 0).then_some(edgeitems),
            })
            .collect();
        let total: usize = axes.iter().map(AxisSel::count).product();
        let mut values = Vec::with_capacity(total);
        let mut pos = vec![0usize; axes.len()];
        let mut idx: Vec<usize> = axes.iter().map(|a| a.index(0)).collect();
        'outer: loop {
            values.push(get(&idx));
            for ax in (0..axes.len()).rev() {
                pos[ax] += 1;
                if pos[ax] < axes[ax].count() {
                    idx[ax] = axes[ax].index(pos[ax]);
                    continue 'outer;
                }
                pos[ax] = 0;
                idx[ax] = axes[ax].index(0);
            }
            break;
        }
        Shown {
            shape: shape.to_vec(),
            axes,
            values,
            summarise,
            edgeitems,
        }
    }

    /// The shown values, row-major.
    pub(crate) fn values(&self) -> &[PrintValue] {
        &self.values
    }

    fn value_at(&self, index: &[usize]) -> PrintValue {
        let mut off = 0;
        for (a, &i) in self.axes.iter().zip(index) {
            off = off * a.count() + a.position(i);
        }
        self.values[off]
    }
}

/// NumPy's `_extendLine` (legacy mode off; words are always one line).
fn extend_line(s: &mut String, line: &mut String, word: &str, line_width: isize, next_line_prefix: &str) {
    let needs_wrap = (line.len() + word.len()) as isize > line_width && line.len() > next_line_prefix.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        line.clear();
        line.push_str(next_line_prefix);
    }
    line.push_str(word);
}

struct Ctx<'a> {
    shown: &'a Shown,
    fmt: &'a dyn Fn(PrintValue) -> String,
}

impl Ctx<'_> {
    fn recurse(&self, index: &mut Vec<usize>, hanging_indent: &str, curr_width: isize) -> String {
        let shape = &self.shown.shape;
        let axis = index.len();
        let axes_left = shape.len() - axis;
        if axes_left == 0 {
            return (self.fmt)(self.shown.value_at(index));
        }
        let next_hanging_indent = format!("{hanging_indent} ");
        let next_width = curr_width - 1;
        let a_len = shape[axis];
        let show_summary = self.shown.summarise && 2 * self.shown.edgeitems < a_len;
        let (leading, trailing) = if show_summary {
            (self.shown.edgeitems, self.shown.edgeitems)
        } else {
            (0, a_len)
        };
        let child = |index: &mut Vec<usize>, i: usize| {
            index.push(i);
            let r = self.recurse(index, &next_hanging_indent, next_width);
            index.pop();
            r
        };

        let mut s = String::new();
        if axes_left == 1 {
            let elem_width = curr_width - 1;
            let mut line = hanging_indent.to_string();
            for i in 0..leading {
                let word = child(index, i);
                extend_line(&mut s, &mut line, &word, elem_width, hanging_indent);
                line.push(' ');
            }
            if show_summary {
                extend_line(&mut s, &mut line, "...", elem_width, hanging_indent);
                line.push(' ');
            }
            for i in (2..=trailing).rev() {
                let word = child(index, a_len - i);
                extend_line(&mut s, &mut line, &word, elem_width, hanging_indent);
                line.push(' ');
            }
            let word = child(index, a_len - 1);
            extend_line(&mut s, &mut line, &word, elem_width, hanging_indent);
            s.push_str(&line);
        } else {
            let line_sep = "\n".repeat(axes_left - 1);
            for i in 0..leading {
                let nested = child(index, i);
                s.push_str(hanging_indent);
                s.push_str(&nested);
                s.push_str(&line_sep);
            }
            if show_summary {
                s.push_str(hanging_indent);
                s.push_str("...");
                s.push_str(&line_sep);
            }
            for i in (2..=trailing).rev() {
                let nested = child(index, a_len - i);
                s.push_str(hanging_indent);
                s.push_str(&nested);
                s.push_str(&line_sep);
            }
            let nested = child(index, a_len - 1);
            s.push_str(hanging_indent);
            s.push_str(&nested);
        }
        format!("[{}]", &s[hanging_indent.len()..])
    }
}

/// NumPy's `_formatArray` with separator `' '` and an empty prefix.
pub(crate) fn format_nested(shown: &Shown, fmt: &dyn Fn(PrintValue) -> String, linewidth: usize) -> String {
    let ctx = Ctx { shown, fmt };
    let width = isize::try_from(linewidth).unwrap_or(isize::MAX);
    ctx.recurse(&mut Vec::new(), " ", width)
}
