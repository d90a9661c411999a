//! The crate's modules depend only downwards: every `crate::…` path in the library's
//! (non-test) code names a module of the same layer or a lower one.
//!
//! To add a module: put its name in the layer it belongs to in [`LAYERS`] (a module
//! missing from the table fails `every_module_has_a_layer`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The architecture's layers, lowest first. A module may use modules of its own layer
/// and of the layers below it, never above.
const LAYERS: &[&[&str]] = &[
    // Foundations: no tensor types.
    &[
        "error",
        "element",
        "threads",
        "cpu",
        "same_type",
        "display",
        "kernels",
    ],
    &["layout"],
    // The engine and the memory it writes into.
    &["iter", "memory"],
    &["storage"],
    &["tensor"],
    &["ops", "manip", "io", "interop"],
    &["reduce", "linalg", "fft"],
    &["nn"],
    // GPU tensors: reuse the CPU ops' argument types and fall back to their kernels.
    &["device"],
    &["autograd"],
    &["optim"],
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layer of a top-level module, if the table has it.
fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level modules: `src/<name>.rs` and `src/<name>/`, except `lib.rs`.
fn modules() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(src())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_stem()?.to_str()?.to_string();
            let is_mod = p.is_dir() || p.extension().is_some_and(|e| e == "rs");
            (is_mod && name != "lib").then_some(name)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Names the crate root re-exports (`pub use module::{A, B}` in lib.rs) and the
/// `#[macro_export]` macros, each with the module that defines it.
fn root_names() -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    for stmt in lib.split(';') {
        // The statement from its `pub use` line on (rustfmt may spread it over lines).
        let lines: Vec<&str> = stmt.lines().map(str::trim).collect();
        let Some(start) = lines.iter().position(|l| l.starts_with("pub use ")) else {
            continue;
        };
        let joined = lines[start..].join(" ");
        let rest = &joined["pub use ".len()..];
        let Some(module) = rest.split("::").next().filter(|m| layer(m).is_some()) else {
            continue;
        };
        let items = rest.rsplit("::").next().unwrap().trim();
        for name in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = name.split(" as ").last().unwrap().trim();
            if !name.is_empty() {
                names.insert(name.to_string(), module.to_string());
            }
        }
    }
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if l.trim() == "#[macro_export]"
                && let Some(def) = lines[i + 1..]
                    .iter()
                    .find_map(|l| l.trim().strip_prefix("macro_rules! "))
            {
                let name = def.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_');
                names.insert(name.to_string(), module_of(&f));
            }
        }
    }
    names
}

/// The top-level module a source file belongs to.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_str()
        .unwrap();
    first.trim_end_matches(".rs").to_string()
}

/// Test code may use anything: test files, and a file's lines from its first
/// `#[cfg(test)]` on (test modules come last).
fn is_test_file(file: &Path) -> bool {
    let name = file.file_stem().unwrap().to_str().unwrap();
    name == "tests" || name.ends_with("_tests") || name.starts_with("tests_")
}

/// Every `crate::name` of a line's code (a trailing comment and string contents
/// skipped).
fn crate_paths(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap();
    let mut out = Vec::new();
    let mut in_str = false;
    for (i, c) in code.char_indices() {
        if c == '"' {
            in_str = !in_str;
            continue;
        }
        let Some(tail) = code[i..].strip_prefix("crate::") else {
            continue;
        };
        if in_str || code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let ident = |s: &str| -> String {
            s.trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        match tail.strip_prefix('{') {
            // `crate::{a, b::c}`
            Some(group) => out.extend(
                group
                    .split('}')
                    .next()
                    .unwrap()
                    .split(',')
                    .map(ident)
                    .filter(|n| !n.is_empty()),
            ),
            None => out.push(ident(tail)),
        }
    }
    out
}

#[test]
fn every_module_has_a_layer() {
    let missing: Vec<String> = modules()
        .into_iter()
        .filter(|m| layer(m).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "modules missing from the layer table in tests/layers.rs: {missing:?}"
    );
}

#[test]
fn modules_use_only_their_own_layer_and_below() {
    let names = root_names();
    assert_eq!(names.get("Tensor").map(String::as_str), Some("tensor"));
    assert_eq!(names.get("s").map(String::as_str), Some("layout"));
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let (mut checked, mut bad) = (0, Vec::new());
    for f in files
        .iter()
        .filter(|f| !is_test_file(f) && module_of(f) != "lib")
    {
        let from = module_of(f);
        let Some(from_layer) = layer(&from) else {
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim() == "#[cfg(test)]" {
                break;
            }
            if line.trim_start().starts_with("//") {
                continue;
            }
            for name in crate_paths(line) {
                let to = if layer(&name).is_some() {
                    name.clone()
                } else if let Some(m) = names.get(&name) {
                    m.clone()
                } else if name == "prelude" || name == "ReadmeDoctests" {
                    "lib".to_string()
                } else {
                    panic!(
                        "{}:{}: crate::{name} is neither a module nor a root re-export",
                        f.display(),
                        n + 1
                    )
                };
                checked += 1;
                let to_layer = layer(&to).unwrap_or(usize::MAX);
                if to_layer > from_layer {
                    bad.push(format!(
                        "{}:{}: {from} (layer {from_layer}) uses crate::{name} ({to}, layer {to_layer})",
                        f.strip_prefix(src()).unwrap().display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "the scan found the crate's paths ({checked})"
    );
    assert!(
        bad.is_empty(),
        "uses of a higher layer:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_path_scanner_sees_groups_and_skips_comments_and_strings() {
    assert_eq!(crate_paths("use crate::iter::{Dst, Src};"), vec!["iter"]);
    assert_eq!(
        crate_paths("use crate::{Tensor, layout::Order};"),
        vec!["Tensor", "layout"]
    );
    assert_eq!(
        crate_paths("let x = crate::tensor::f(); // crate::nn"),
        vec!["tensor"]
    );
    assert!(crate_paths(r#"let s = "crate::nn";"#).is_empty());
    assert!(crate_paths("$crate::tensor::x").is_empty());
}
