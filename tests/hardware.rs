//! The machine's layout read from recorded sysfs trees (`tests/fixtures/hardware/`, written by
//! its `generate.py`; `vm-2cpu` and `vm-epyc-2cpu` recorded from virtual machines) through the
//! same code path as the live system, and the order the hardware placement lays workers in. In a binary of its
//! own: its pinned pools expect every allowed CPU free, which other tests' pools could hold.

use hypersteal::hardware::{CoreKind, Hardware};
use hypersteal::{Placement, ThreadPoolBuilder, Topology};
use std::path::Path;

fn fixture(name: &str) -> Hardware {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hardware")
        .join(name);
    Hardware::from_root(&root).unwrap_or_else(|| panic!("fixture {name} has no CPU list"))
}

/// The CPUs a pool of `n` pinned workers gets on an otherwise empty machine under the hardware
/// placement: the first `n` of the mapped order, ordered by closeness (`src/pinning.rs`).
fn pool_cpus(hw: &Hardware, n: usize) -> Vec<usize> {
    let mut cpus: Vec<usize> = hw.mapped_order().into_iter().take(n).collect();
    hw.by_closeness(&mut cpus);
    cpus
}

fn cpu(hw: &Hardware, id: usize) -> &hypersteal::hardware::Cpu {
    hw.cpus().iter().find(|c| c.id == id).unwrap()
}

/// Hypercube neighbours across dimension `d` (workers `i` and `i ^ 2^d`) satisfy `close`.
fn dimension_holds(cpus: &[usize], d: u32, close: impl Fn(usize, usize) -> bool) -> bool {
    (0..cpus.len()).all(|i| {
        let j = i ^ (1 << d);
        j >= cpus.len() || close(cpus[i], cpus[j])
    })
}

#[test]
fn the_development_vm_is_two_plain_cpus() {
    let hw = fixture("vm-2cpu");
    assert_eq!(hw.cpus().len(), 2);
    assert_eq!(hw.cores(), 2);
    assert!(!hw.restricted());
    assert_eq!(hw.mapped_order(), vec![0, 1]);
}

#[test]
fn a_recorded_epyc_vm_is_two_cores_sharing_one_l3() {
    let hw = fixture("vm-epyc-2cpu");
    assert_eq!((hw.cpus().len(), hw.cores()), (2, 2));
    assert!(!hw.restricted());
    let (a, b) = (cpu(&hw, 0), cpu(&hw, 1));
    assert_eq!(a.l3, b.l3);
    assert_ne!(a.l2, b.l2);
    assert_eq!(hw.mapped_order(), vec![0, 1]);
}

#[test]
fn a_16_core_smt_part_gets_whole_cores_first_and_keeps_l3_domains_together() {
    let hw = fixture("ryzen-5950x");
    assert_eq!((hw.cpus().len(), hw.cores()), (32, 16));
    // One thread of every core, then the second threads.
    assert_eq!(hw.mapped_order(), (0..32).collect::<Vec<_>>());
    // 16 workers: one per core; dimensions 0-2 stay inside an L3 domain, dimension 3 crosses.
    let cpus = pool_cpus(&hw, 16);
    let same_l3 = |a, b| cpu(&hw, a).l3 == cpu(&hw, b).l3;
    for d in 0..3 {
        assert!(
            dimension_holds(&cpus, d, same_l3),
            "dimension {d}: {cpus:?}"
        );
    }
    assert!(!dimension_holds(&cpus, 3, same_l3));
    // 32 workers: dimension 0 joins the two threads of a core.
    let cpus = pool_cpus(&hw, 32);
    let same_core = |a, b| cpu(&hw, a).core == cpu(&hw, b).core;
    assert!(dimension_holds(&cpus, 0, same_core), "{cpus:?}");
    // Mesh rows of 4 (a 4 x 4 mesh of 16) lie inside one L3 domain.
    let cpus = pool_cpus(&hw, 16);
    for row in cpus.chunks(4) {
        assert!(row.iter().all(|&c| same_l3(c, row[0])), "{row:?}");
    }
}

#[test]
fn a_two_socket_machine_fills_one_numa_node_before_the_other() {
    let hw = fixture("xeon-2s");
    assert_eq!((hw.cpus().len(), hw.cores()), (32, 16));
    let node = |id| cpu(&hw, id).node;
    // 8 workers: one node, whole cores.
    let cpus = pool_cpus(&hw, 8);
    assert!(cpus.iter().all(|&c| node(c) == 0), "{cpus:?}");
    assert_eq!(cpus, (0..8).collect::<Vec<_>>());
    // 16 workers: only the highest hypercube dimension crosses nodes.
    let cpus = pool_cpus(&hw, 16);
    for d in 0..3 {
        assert!(
            dimension_holds(&cpus, d, |a, b| node(a) == node(b)),
            "{cpus:?}"
        );
    }
    assert!(
        dimension_holds(&cpus, 3, |a, b| node(a) != node(b)),
        "{cpus:?}"
    );
}

#[test]
fn a_hybrid_part_puts_performance_cores_first_and_efficiency_clusters_together() {
    let hw = fixture("i7-1260p");
    assert_eq!((hw.cpus().len(), hw.cores()), (16, 12));
    let kind = |id| cpu(&hw, id).kind;
    assert_eq!(kind(0), CoreKind::Performance);
    assert_eq!(kind(8), CoreKind::Efficiency);
    assert_eq!(
        hw.mapped_order(),
        vec![0, 2, 4, 6, 8, 9, 10, 11, 12, 13, 14, 15, 1, 3, 5, 7]
    );
    // 4 workers: the 4 performance cores.
    assert_eq!(pool_cpus(&hw, 4), vec![0, 2, 4, 6]);
    // 12 workers: a 4-worker group of efficiency cores shares one L2.
    let cpus = pool_cpus(&hw, 12);
    for group in cpus[4..].chunks(4) {
        assert!(
            group
                .iter()
                .all(|&c| cpu(&hw, c).l2 == cpu(&hw, group[0]).l2),
            "{cpus:?}"
        );
    }
}

#[test]
fn a_cpuset_with_holes_gives_only_the_allowed_cpus() {
    let hw = fixture("ryzen-5950x-cpuset");
    let ids: Vec<usize> = hw.cpus().iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![0, 1, 2, 3, 8, 17, 18, 19, 30]);
    assert!(hw.restricted(), "a share of the machine");
    // CPU 30's sibling (14) is not allowed, so 30 counts as a whole core.
    assert_eq!(hw.mapped_order(), vec![0, 1, 2, 3, 8, 30, 17, 18, 19]);
    assert_eq!(hw.cores(), 5 + 1);
}

#[test]
fn a_root_without_sysfs_is_none_and_the_flat_layout_is_id_order() {
    assert!(Hardware::from_root(Path::new("/nonexistent/root")).is_none());
    assert_eq!(Hardware::flat(&[5, 2, 9]).mapped_order(), vec![2, 5, 9]);
}

#[test]
fn placement_strings_round_trip_and_bad_ones_name_the_choices() {
    for p in [Placement::Hardware, Placement::OsOrder] {
        assert_eq!(p.to_string().parse::<Placement>(), Ok(p));
    }
    assert_eq!(" OS ".parse::<Placement>(), Ok(Placement::OsOrder));
    let e = "numa".parse::<Placement>().unwrap_err();
    assert!(
        e.contains("numa") && e.contains("`hardware` or `os`"),
        "{e}"
    );
}

#[test]
fn pinned_pools_under_either_placement_use_distinct_allowed_cpus() {
    let live = Hardware::detect();
    let allowed: Vec<usize> = live.cpus().iter().map(|c| c.id).collect();
    for placement in [Placement::Hardware, Placement::OsOrder] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(allowed.len())
            .topology(Topology::Hypercube)
            .pin_threads(true)
            .placement(placement)
            .build()
            .unwrap();
        let mut map: Vec<usize> = pool.cpu_map().into_iter().flatten().collect();
        if map.is_empty() {
            continue; // this system does not pin
        }
        map.sort_unstable();
        assert_eq!(map, allowed, "{placement}");
        assert_eq!(pool.install(|| 1 + 1), 2);
    }
}
