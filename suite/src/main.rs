//! `hypersteal-suite`: the benchmark suite's command line (see `docs/suite.md`).

fn main() {
    std::process::exit(hypersteal_suite::cli::main());
}
