//! `ditto-fuzz TARGET`: one of `ditto_host::fuzz::TARGETS` under AFL++
//! (persistent mode: many inputs per process). `ditto-fuzz --seeds TARGET
//! DIR` writes the target's seed inputs into DIR, where a corpus starts.
//! `scripts/fuzz` builds and runs it.
use std::path::Path;

fn usage() -> ! {
    let names: Vec<&str> = ditto_host::fuzz::TARGETS.iter().map(|t| t.name).collect();
    eprintln!("usage: ditto-fuzz TARGET | ditto-fuzz --seeds TARGET DIR; TARGET one of {}", names.join(", "));
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--seeds") {
        let (Some(name), Some(dir)) = (args.get(1), args.get(2)) else { usage() };
        if ditto_host::fuzz::by_name(name).is_none() {
            usage();
        }
        for (i, seed) in ditto_host::fuzz::seeds(name).iter().enumerate() {
            let path = Path::new(dir).join(format!("seed-{i}"));
            if let Err(e) = std::fs::write(&path, seed) {
                eprintln!("ditto-fuzz: cannot write {}: {e}", path.display());
                std::process::exit(1);
            }
        }
        return;
    }
    let Some(target) = args.first().and_then(|name| ditto_host::fuzz::by_name(name)) else { usage() };
    afl::fuzz!(|data: &[u8]| {
        (target.run)(data);
    });
}
