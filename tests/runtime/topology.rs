//! Topology graphs exactly as `hypersteal::topology`'s docs define them.

use hypersteal::Topology;

fn neighbors(t: Topology, p: usize) -> Vec<Vec<usize>> {
    let g = t.graph(p);
    assert_eq!(g.len(), p);
    (0..p).map(|k| g.neighbors(k).collect()).collect()
}

#[test]
fn hypercube_8() {
    let g = Topology::Hypercube.graph(8);
    assert_eq!(
        neighbors(Topology::Hypercube, 8),
        vec![
            vec![1, 2, 4],
            vec![0, 3, 5],
            vec![0, 3, 6],
            vec![1, 2, 7],
            vec![0, 5, 6],
            vec![1, 4, 7],
            vec![2, 4, 7],
            vec![3, 5, 6],
        ]
    );
    assert_eq!(g.diameter(), 3);
    assert_eq!(g.distance(0, 7), 3);
    assert_eq!(g.distance(3, 5), 2);
}

#[test]
fn incomplete_hypercube_6() {
    // Nodes 6 and 7 do not exist; 5 keeps 1 and 4, and 2 and 3 lose 6 and 7.
    let g = Topology::Hypercube.graph(6);
    assert_eq!(
        neighbors(Topology::Hypercube, 6),
        vec![
            vec![1, 2, 4],
            vec![0, 3, 5],
            vec![0, 3],
            vec![1, 2],
            vec![0, 5],
            vec![1, 4],
        ]
    );
    // 2 -> 0 -> 4 -> 5 or 2 -> 3 -> 1 -> 5: three hops, the longest shortest path.
    assert_eq!(g.distance(2, 5), 3);
    assert_eq!(g.distance(3, 4), 3);
    assert_eq!(g.diameter(), 3);
}

#[test]
fn mesh_6_is_3_by_2() {
    // 0 1 2
    // 3 4 5
    let g = Topology::Mesh.graph(6);
    assert_eq!(
        neighbors(Topology::Mesh, 6),
        vec![
            vec![1, 3],
            vec![0, 2, 4],
            vec![1, 5],
            vec![0, 4],
            vec![1, 3, 5],
            vec![2, 4],
        ]
    );
    assert_eq!(g.diameter(), 3);
}

#[test]
fn mesh_9_is_3_by_3() {
    let g = Topology::Mesh.graph(9);
    assert_eq!(g.neighbors(0).collect::<Vec<_>>(), [1, 3]);
    assert_eq!(g.neighbors(4).collect::<Vec<_>>(), [1, 3, 5, 7]);
    assert_eq!(g.neighbors(8).collect::<Vec<_>>(), [5, 7]);
    assert_eq!(g.diameter(), 4);
    assert_eq!(g.distance(0, 8), 4);
}

#[test]
fn short_last_row_of_a_mesh() {
    // 7 workers: 3 columns, last row holds only 6.
    let g = Topology::Mesh.graph(7);
    assert_eq!(g.neighbors(6).collect::<Vec<_>>(), [3]);
    assert_eq!(g.neighbors(5).collect::<Vec<_>>(), [2, 4]);
    assert_eq!(g.diameter(), 4); // 2 -> 6
}

#[test]
fn torus_9_wraps_rows_and_columns() {
    let g = Topology::Torus.graph(9);
    assert_eq!(g.neighbors(0).collect::<Vec<_>>(), [1, 2, 3, 6]);
    assert_eq!(g.neighbors(4).collect::<Vec<_>>(), [1, 3, 5, 7]);
    assert_eq!(g.neighbors(8).collect::<Vec<_>>(), [2, 5, 6, 7]);
    assert_eq!(g.diameter(), 2);
}

#[test]
fn torus_10_wraps_only_full_rows_and_columns() {
    // 4 columns, 3 rows, the last row holds 8 and 9: rows 0 and 1 wrap, columns 0 and 1 wrap
    // through the last row, columns 2 and 3 and the last row do not.
    let g = Topology::Torus.graph(10);
    assert_eq!(g.neighbors(0).collect::<Vec<_>>(), [1, 3, 4, 8]);
    assert_eq!(g.neighbors(2).collect::<Vec<_>>(), [1, 3, 6]);
    assert_eq!(g.neighbors(3).collect::<Vec<_>>(), [0, 2, 7]);
    assert_eq!(g.neighbors(8).collect::<Vec<_>>(), [0, 4, 9]);
    assert_eq!(g.neighbors(9).collect::<Vec<_>>(), [1, 5, 8]);
    assert!(g.is_neighbor(8, 0) && g.is_neighbor(3, 0) && !g.is_neighbor(9, 0));
    assert_eq!(g.distance(8, 3), 2); // up the wrap of column 0, then the wrap of row 0
    assert_eq!(g.distance(9, 7), 3);
    assert_eq!(g.diameter(), 3);
}

#[test]
fn graphs_of_1024_workers() {
    let expected = [
        (Topology::Hypercube, 10, 10),
        (Topology::Mesh, 62, 4),
        (Topology::Torus, 32, 4),
        (Topology::Ring, 512, 2),
        (Topology::Complete, 1, 1023),
    ];
    for (t, diameter, degree) in expected {
        let g = t.graph(1024);
        assert_eq!(g.diameter(), diameter, "{t}");
        assert_eq!(g.neighbors(1023 - 33).len(), degree, "{t}");
        let far = (0..1024).map(|b| g.distance(5, b)).max().unwrap();
        assert!(far <= diameter, "{t}");
        for b in g.neighbors(700) {
            assert!(g.is_neighbor(b, 700) && g.distance(700, b) == 1, "{t}");
        }
    }
    let n = Topology::Complete.graph(1024).neighbors(7);
    assert_eq!(
        n.clone().take(8).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5, 6, 8]
    );
    assert_eq!(n.last(), Some(1023));
}

#[test]
fn ring_5() {
    let g = Topology::Ring.graph(5);
    assert_eq!(
        neighbors(Topology::Ring, 5),
        vec![vec![1, 4], vec![0, 2], vec![1, 3], vec![2, 4], vec![0, 3]]
    );
    assert_eq!(g.diameter(), 2);
    assert_eq!(g.distance(0, 2), 2);
    assert_eq!(g.distance(0, 3), 2);
}

#[test]
fn complete_and_single_worker() {
    let g = Topology::Complete.graph(5);
    assert_eq!(g.neighbors(2).collect::<Vec<_>>(), [0, 1, 3, 4]);
    assert_eq!(g.diameter(), 1);
    for t in Topology::ALL {
        let g = t.graph(1);
        assert_eq!(g.neighbors(0).count(), 0);
        assert_eq!(g.diameter(), 0);
    }
}

#[test]
fn names_parse_and_display() {
    for t in Topology::ALL {
        assert_eq!(t.to_string().parse::<Topology>().unwrap(), t);
    }
    let err = "star".parse::<Topology>().unwrap_err().to_string();
    assert!(err.contains("`star`"), "{err}");
    assert!(
        err.contains("hypercube, mesh, torus, ring, complete"),
        "{err}"
    );
}

#[test]
fn combining_tree_edges_follow_the_topology() {
    let g = Topology::Hypercube.graph(8);
    let parents: Vec<_> = (0..8).map(|k| g.tree_parent(k)).collect();
    assert_eq!(
        parents,
        [
            None,
            Some(0),
            Some(0),
            Some(2),
            Some(0),
            Some(4),
            Some(4),
            Some(6)
        ]
    );
    let g = Topology::Mesh.graph(9);
    let parents: Vec<_> = (0..9).map(|k| g.tree_parent(k)).collect();
    assert_eq!(
        parents,
        [
            None,
            Some(0),
            Some(1),
            Some(0),
            Some(3),
            Some(4),
            Some(3),
            Some(6),
            Some(7)
        ]
    );
}
