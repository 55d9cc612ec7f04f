//! Generators and GraphSpec: determinism, sizes, shapes; the parallel CSR builder.

use occupant_apps::graph::gen::*;
use occupant_apps::graph::{BuildOptions, Csr, EdgeList, GraphSpec};

fn specs() -> Vec<&'static str> {
    vec![
        "rmat:scale=10,ef=8,seed=5",
        "grid:w=40,h=25,seed=2",
        "stencil:30x20",
        "geo:n=3000,deg=6,shortcuts=0.01,seed=4",
        "er:n=2000,p=0.003,seed=9",
        "er:n=2000,m=5000,seed=9",
        "ba:n=2000,m=3,seed=1",
    ]
}

#[test]
fn every_generator_is_deterministic_and_seed_sensitive() {
    for s in specs() {
        let spec: GraphSpec = s.parse().unwrap();
        let a = spec.generate().unwrap();
        let b = spec.generate().unwrap();
        assert_eq!(a, b, "{s}");
        assert!(a
            .edges
            .iter()
            .all(|&(u, v)| u < a.num_vertices && v < a.num_vertices));
        assert_eq!(a.weights.as_ref().unwrap().len(), a.edges.len());
        if !s.starts_with("stencil") {
            let other: GraphSpec = format!("{s},seed=77")
                .replace("seed=", "x=")
                .parse()
                .unwrap_or_else(|_| {
                    let t = s
                        .rsplit_once("seed=")
                        .map(|(h, _)| format!("{h}seed=77"))
                        .unwrap_or(format!("{s},seed=77"));
                    t.parse().unwrap()
                });
            assert_ne!(other.generate().unwrap(), a, "{s}");
        }
    }
}

#[test]
fn deterministic_whatever_the_thread_count() {
    let spec: GraphSpec = "rmat:scale=12,ef=4,seed=8".parse().unwrap();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let three = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let a = one.install(|| spec.generate().unwrap());
    let b = three.install(|| spec.generate().unwrap());
    assert_eq!(a, b);
    let ga = one.install(|| a.to_csr(&BuildOptions::undirected_simple()).unwrap());
    let gb = three.install(|| b.to_csr(&BuildOptions::undirected_simple()).unwrap());
    assert_eq!(ga, gb);
}

#[test]
fn sizes_are_right() {
    let r = rmat(&RmatParams {
        scale: 9,
        edge_factor: 5,
        ..Default::default()
    })
    .unwrap();
    assert_eq!((r.num_vertices, r.edges.len()), (512, 5 * 512));
    let g = grid(&GridParams {
        width: 7,
        height: 5,
        max_weight: 3,
        seed: 1,
    })
    .unwrap();
    assert_eq!(g.edges.len(), 6 * 5 + 7 * 4);
    assert!(g
        .weights
        .as_ref()
        .unwrap()
        .iter()
        .all(|&w| (1..=3).contains(&w)));
    let s = stencil(1000, 1000).unwrap();
    assert_eq!((s.num_vertices, s.edges.len()), (1_000_000, 2 * 999 * 1000));
    let csr = s.to_csr(&BuildOptions::default()).unwrap();
    assert_eq!(csr.num_edges(), 4 * 999 * 1000);
    assert_eq!(csr.degree(0), 2);
    assert_eq!(csr.degree(1001), 4);
    let b = barabasi_albert(&BaParams {
        n: 100,
        m: 4,
        max_weight: 1,
        seed: 1,
    })
    .unwrap();
    assert_eq!(b.edges.len(), 96 * 4);
    let simple = b.to_csr(&BuildOptions::undirected_simple()).unwrap();
    assert_eq!(simple.num_edges(), 2 * 96 * 4, "BA has no duplicate edges");
    let e = erdos_renyi(&ErParams {
        n: 1000,
        size: ErSize::Probability(0.01),
        max_weight: 1,
        seed: 3,
    })
    .unwrap();
    let expected = 0.01 * 1000.0 * 999.0 / 2.0;
    assert!(
        (e.edges.len() as f64 - expected).abs() < 5.0 * expected.sqrt(),
        "{}",
        e.edges.len()
    );
    let full = erdos_renyi(&ErParams {
        n: 30,
        size: ErSize::Probability(1.0),
        max_weight: 1,
        seed: 3,
    })
    .unwrap();
    assert_eq!(full.edges.len(), 30 * 29 / 2);
    let none = erdos_renyi(&ErParams {
        n: 30,
        size: ErSize::Probability(0.0),
        max_weight: 1,
        seed: 3,
    })
    .unwrap();
    assert!(none.edges.is_empty());
    let geo = geometric(&GeoParams {
        n: 20000,
        degree: 8.0,
        shortcuts: 0.0,
        max_weight: 10,
        seed: 1,
    })
    .unwrap();
    let mean = 2.0 * geo.edges.len() as f64 / 20000.0;
    assert!((6.0..9.0).contains(&mean), "mean degree {mean}");
}

#[test]
fn bad_parameters_are_errors() {
    assert!(rmat(&RmatParams {
        scale: 32,
        ..Default::default()
    })
    .is_err());
    assert!(rmat(&RmatParams {
        a: 0.9,
        b: 0.2,
        ..Default::default()
    })
    .is_err());
    assert!(grid(&GridParams {
        width: 0,
        height: 5,
        max_weight: 1,
        seed: 1
    })
    .is_err());
    assert!(grid(&GridParams {
        width: 70000,
        height: 70000,
        max_weight: 1,
        seed: 1
    })
    .is_err());
    assert!(barabasi_albert(&BaParams {
        n: 3,
        m: 3,
        max_weight: 1,
        seed: 1
    })
    .is_err());
    assert!(erdos_renyi(&ErParams {
        n: 10,
        size: ErSize::Probability(1.5),
        max_weight: 1,
        seed: 1
    })
    .is_err());
    assert!(geometric(&GeoParams {
        n: 10,
        degree: -1.0,
        shortcuts: 0.0,
        max_weight: 1,
        seed: 1
    })
    .is_err());
}

#[test]
fn specs_parse_print_and_reject() {
    for s in specs().into_iter().chain([
        "grid:2000x2000",
        "stencil:w=3,h=4",
        "rmat:scale=22,ef=16,seed=1",
    ]) {
        let spec: GraphSpec = s.parse().unwrap();
        let again: GraphSpec = spec.to_string().parse().unwrap();
        assert_eq!(spec, again, "{s}");
    }
    for bad in [
        "",
        "mesh:n=3",
        "rmat:ef=3",
        "rmat:scale=x",
        "grid:3y4",
        "er:n=4",
        "er:n=4,p=0.1,m=3",
        "ba:n=10,m=2,q=1",
        "grid:w=3,w=4,h=1",
        "geo:n=10,deg",
        "stencil:axb",
    ] {
        let e = bad.parse::<GraphSpec>().unwrap_err().to_string();
        assert!(
            e.contains("valid forms") && e.contains("rmat:scale="),
            "{bad}: {e}"
        );
    }
}

#[test]
fn builder_options() {
    // 0->1 twice (weights 5, 2), a self-loop on 2, 1->0.
    let edges = [(0, 1), (0, 1), (2, 2), (1, 0)];
    let w = [5, 2, 7, 1];
    let plain = Csr::build(3, &edges, Some(&w), &BuildOptions::default()).unwrap();
    assert_eq!(plain.neighbours(0), &[1, 1]);
    assert_eq!(plain.edge_weights(0), Some(&[2, 5][..]));
    assert_eq!(plain.neighbours(2), &[2]);
    let sym = Csr::build(
        3,
        &edges,
        Some(&w),
        &BuildOptions {
            symmetrize: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(sym.neighbours(0), &[1, 1, 1]);
    assert_eq!(sym.neighbours(2), &[2], "a self-loop is mirrored once");
    let simple = Csr::build(3, &edges, Some(&w), &BuildOptions::undirected_simple()).unwrap();
    assert_eq!(simple.neighbours(0), &[1]);
    assert_eq!(simple.edge_weights(0), Some(&[1][..]));
    assert_eq!(simple.neighbours(2), &[] as &[u32]);
    assert!(simple.is_symmetric());
    assert!(plain.is_symmetric(), "0->1 and 1->0 exist");
    assert!(!Csr::build(2, &[(0, 1)], None, &BuildOptions::default())
        .unwrap()
        .is_symmetric());
    let t = plain.transpose();
    assert_eq!(t.neighbours(1), &[0, 0]);
    assert_eq!(t.transpose(), plain);
    assert!(Csr::build(2, &[(0, 2)], None, &BuildOptions::default()).is_err());
    assert!(Csr::build(2, &[(0, 1)], Some(&[]), &BuildOptions::default()).is_err());
    let single = Csr::build(1, &[], None, &BuildOptions::undirected_simple()).unwrap();
    assert_eq!((single.num_vertices(), single.num_edges()), (1, 0));
    let empty = Csr::build(0, &[], None, &BuildOptions::default()).unwrap();
    assert_eq!(empty.num_vertices(), 0);
}

#[test]
fn build_matches_sequential_from_edges_up_to_order() {
    let el = rmat(&RmatParams {
        scale: 11,
        edge_factor: 6,
        seed: 2,
        ..Default::default()
    })
    .unwrap();
    let par = el.to_csr(&BuildOptions::default()).unwrap();
    let seq = Csr::from_edges(el.num_vertices, &el.edges, el.weights.as_deref()).unwrap();
    for v in 0..par.num_vertices() {
        let mut a: Vec<(u32, u32)> = seq
            .neighbours(v)
            .iter()
            .copied()
            .zip(seq.edge_weights(v).unwrap().iter().copied())
            .collect();
        a.sort_unstable();
        let b: Vec<(u32, u32)> = par
            .neighbours(v)
            .iter()
            .copied()
            .zip(par.edge_weights(v).unwrap().iter().copied())
            .collect();
        assert_eq!(a, b);
    }
    assert_eq!(
        EdgeList::from_csr(&par)
            .to_csr(&BuildOptions::default())
            .unwrap(),
        par
    );
}
