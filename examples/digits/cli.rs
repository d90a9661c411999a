//! Command-line flags of the `digits` and `mnist_cnn` examples: `--name value` pairs.

/// Reads `--name value` pairs from the command line, handing each to `set`, which
/// returns `Ok(false)` for a flag it does not know. `--help` prints `usage` and exits.
pub fn parse_flags(
    usage: &str,
    mut set: impl FnMut(&str, &str) -> Result<bool, String>,
) -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if flag == "--help" || flag == "-h" {
            println!("{usage}");
            std::process::exit(0);
        }
        let value = args
            .get(i + 1)
            .ok_or_else(|| format!("{flag} needs a value"))?;
        if !set(flag, value)? {
            return Err(format!("unknown argument {flag} (try --help)"));
        }
        i += 2;
    }
    Ok(())
}

/// Parses a flag's value, naming the flag in the error.
pub fn value<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    v.parse().map_err(|e| format!("{flag}: {e}"))
}
