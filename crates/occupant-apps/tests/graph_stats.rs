//! Graph statistics on graphs whose answers are known.

use occupant_apps::graph::{Csr, GraphSpec, GraphStats};

fn gen(spec: &str) -> Csr {
    spec.parse::<GraphSpec>().unwrap().csr().unwrap()
}

#[test]
fn grid_and_stencil_diameters_are_exact() {
    for (spec, d) in [
        ("grid:w=57,h=13,seed=4", 57 + 13 - 2),
        ("stencil:1000x1000", 1998),
        ("grid:1x1", 0),
        ("grid:5x1", 4),
    ] {
        let s = GraphStats::of(&gen(spec));
        assert_eq!(s.diameter_estimate, d, "{spec}");
        assert_eq!(
            (s.components, s.largest_component),
            (1, s.vertices),
            "{spec}"
        );
        assert!(
            s.symmetric && s.self_loops == 0 && s.duplicate_edges == 0,
            "{spec}"
        );
    }
}

#[test]
fn special_graphs() {
    // 0 -> 1 twice, a self-loop on 2, vertex 3 and 4 isolated, 5 -> 6.
    let g = Csr::from_edges(7, &[(0, 1), (2, 2), (0, 1), (5, 6)], Some(&[3, 4, 5, 6])).unwrap();
    let s = GraphStats::of(&g);
    assert_eq!(
        (s.vertices, s.edges, s.self_loops, s.duplicate_edges),
        (7, 4, 1, 1)
    );
    assert_eq!(s.isolated_vertices, 2);
    assert!(!s.symmetric);
    assert_eq!(
        (s.components, s.largest_component, s.diameter_estimate),
        (5, 2, 1)
    );
    assert_eq!((s.out_degree.min, s.out_degree.max), (0, 2));
    let w = s.weights.as_ref().unwrap();
    assert_eq!((w.min, w.max, w.mean), (3, 6, 4.5));
    let total: u32 = s.out_degree.histogram.iter().map(|b| b.count).sum();
    assert_eq!(total, 7);
    assert_eq!(
        s.out_degree.histogram[0].count, 4,
        "degree-0 vertices: 1, 3, 4, 6"
    );
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["components"], 5);
    assert!(s
        .to_string()
        .contains("components          5 (largest 2 vertices)"));

    let single = GraphStats::of(&Csr::from_edges(1, &[], None).unwrap());
    assert_eq!(
        (
            single.vertices,
            single.edges,
            single.components,
            single.diameter_estimate
        ),
        (1, 0, 1, 0)
    );
    let empty = GraphStats::of(&Csr::from_edges(0, &[], None).unwrap());
    assert_eq!((empty.vertices, empty.components), (0, 0));
}

#[test]
fn rmat_is_low_diameter_and_skewed() {
    let s = GraphStats::of(&gen("rmat:scale=14,ef=16,seed=1"));
    assert_eq!(s.vertices, 1 << 14);
    assert!(s.diameter_estimate < 15, "{}", s.diameter_estimate);
    assert!(
        s.out_degree.max > 50 * s.out_degree.mean as u32,
        "{:?}",
        s.out_degree
    );
    assert!(
        s.isolated_vertices > 0,
        "R-MAT leaves vertices without edges"
    );
}
