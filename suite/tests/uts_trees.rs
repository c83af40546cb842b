//! The UTS sample trees against their published counts, sequentially.
//! T1 and T3 are also covered (under every runtime) by `workloads.rs`; the
//! rest take several seconds each unoptimised, so they are ignored by
//! default: `cargo test --release -p hypersteal-suite -- --ignored`.

use hypersteal_suite::workloads::uts;

fn verify(name: &str) {
    let tree = uts::tree(name).unwrap();
    let start = std::time::Instant::now();
    let got = uts::sequential(tree);
    eprintln!("{name}: {got} in {:.2?}", start.elapsed());
    assert_eq!(got, tree.published, "{name} ({})", tree.args);
}

#[test]
#[ignore = "seconds each; run with --release --ignored"]
fn uts_t2_t4_t5_published() {
    for name in ["T2", "T4", "T5"] {
        verify(name);
    }
}

#[test]
#[ignore = "about 100 million nodes each; run with --release --ignored"]
fn uts_large_trees_published() {
    for name in ["T1L", "T2L", "T3L"] {
        verify(name);
    }
}
