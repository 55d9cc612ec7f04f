//! Graph file formats: write-then-read round trips (proptest), malformed inputs (every error
//! names the line), and a proptest-driven fuzz of every reader (random bytes, mutated valid
//! files and token soup must give `Ok` or an error, never a panic).

use occupant_apps::graph::*;
use proptest::prelude::*;

type Reader = fn(&[u8], &str) -> Result<EdgeList, GraphIoError>;

fn dimacs(b: &[u8], n: &str) -> Result<EdgeList, GraphIoError> {
    read_dimacs(b, n)
}
fn mtx(b: &[u8], n: &str) -> Result<EdgeList, GraphIoError> {
    read_matrix_market(b, n)
}
fn snap(b: &[u8], n: &str) -> Result<EdgeList, GraphIoError> {
    read_snap(b, n)
}

const READERS: [(&str, Reader); 3] = [("gr", dimacs), ("mtx", mtx), ("snap", snap)];

fn write(format: &str, el: &EdgeList) -> Vec<u8> {
    let mut out = Vec::new();
    match format {
        "gr" => write_dimacs(&mut out, el),
        "mtx" => write_matrix_market(&mut out, el),
        _ => write_snap(&mut out, el),
    }
    .unwrap();
    out
}

fn edge_list() -> impl Strategy<Value = EdgeList> {
    (1u32..40, any::<bool>(), any::<bool>()).prop_flat_map(|(n, weighted, undirected)| {
        (
            prop::collection::vec((0..n, 0..n, 0u32..=u32::MAX), 0..120),
            Just((n, weighted, undirected)),
        )
            .prop_map(|(es, (n, weighted, undirected))| EdgeList {
                num_vertices: n,
                edges: es.iter().map(|&(u, v, _)| (u, v)).collect(),
                weights: weighted.then(|| es.iter().map(|e| e.2).collect()),
                undirected,
            })
    })
}

fn csr_of(el: &EdgeList, strip_weights: bool) -> Csr {
    let mut el = el.clone();
    if strip_weights {
        el.weights = None;
    }
    el.to_csr(&BuildOptions::default()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn round_trips(el in edge_list()) {
        for (format, read) in READERS {
            let bytes = write(format, &el);
            let back = match read(&bytes, "rt") {
                Ok(b) => b,
                Err(e) if el.edges.is_empty() && format == "snap" => {
                    // An edgeless SNAP list is an empty graph: refused, by line.
                    prop_assert!(e.line().is_some());
                    continue;
                }
                Err(e) => return Err(TestCaseError::fail(format!("{format}: {e}\n{}", String::from_utf8_lossy(&bytes)))),
            };
            prop_assert_eq!(back.num_vertices, el.num_vertices, "{}", format);
            // .gr always carries weights (1 when the source had none).
            let strip = format == "gr" && el.weights.is_none();
            prop_assert_eq!(csr_of(&back, strip), csr_of(&el, false), "{}", format);
        }
    }

    #[test]
    fn fuzz_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        for (_, read) in READERS {
            check_no_panic(read, &bytes);
        }
    }

    #[test]
    fn fuzz_mutated_valid_files(el in edge_list(), edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..6)) {
        for (format, read) in READERS {
            let mut bytes = write(format, &el);
            for (at, op, b) in &edits {
                let len = bytes.len();
                if len == 0 { break; }
                let i = at.index(len);
                match op {
                    0 => bytes[i] = *b,
                    1 => { bytes.remove(i); }
                    2 => bytes.insert(i, *b),
                    _ => bytes.truncate(i),
                }
            }
            check_no_panic(read, &bytes);
        }
    }

    #[test]
    fn fuzz_token_soup(lines in prop::collection::vec(prop::collection::vec(token(), 0..5), 0..12)) {
        let text: String = lines.iter().map(|l| l.join(" ") + "\n").collect();
        for (_, read) in READERS {
            check_no_panic(read, text.as_bytes());
        }
    }
}

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("p".to_string()),
        Just("sp".to_string()),
        Just("a".to_string()),
        Just("c".to_string()),
        Just("%%MatrixMarket matrix coordinate real symmetric".to_string()),
        Just("%%MatrixMarket matrix coordinate integer general".to_string()),
        Just("#".to_string()),
        Just("# Nodes:".to_string()),
        Just("%".to_string()),
        (-3i64..8).prop_map(|x| x.to_string()),
        any::<i64>().prop_map(|x| x.to_string()),
        any::<u64>().prop_map(|x| x.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        "[a-z0-9.eE+-]{1,6}",
    ]
}

fn check_no_panic(read: Reader, bytes: &[u8]) {
    let lines = bytes.split(|&b| b == b'\n').count() as u64;
    match read(bytes, "fuzz") {
        Ok(el) => {
            assert!(el.num_vertices > 0);
            assert!(el
                .edges
                .iter()
                .all(|&(u, v)| u < el.num_vertices && v < el.num_vertices));
            if let Some(w) = &el.weights {
                assert_eq!(w.len(), el.edges.len());
            }
        }
        Err(GraphIoError::Parse { line, path, .. }) => {
            assert_eq!(path, "fuzz");
            assert!(line >= 1 && line <= lines.max(1), "line {line} of {lines}");
        }
        Err(e) => panic!("unexpected error kind: {e}"),
    }
}

/// (format, text, line the error must name, words the message must contain)
const MALFORMED: &[(&str, &str, u64, &str)] = &[
    ("gr", "", 1, "no `p sp"),
    ("gr", "c only a comment\n", 1, "no `p sp"),
    ("gr", "p sp 0 0\n", 1, "empty graph"),
    ("gr", "a 1 2 3\np sp 2 1\n", 1, "before the `p sp"),
    (
        "gr",
        "p sp 3 2\na 1 2 3\n",
        2,
        "ends after 1 arcs but the `p sp` line 1 declares 2",
    ),
    (
        "gr",
        "p sp 3 1\na 1 2 3\na 2 3 1\n",
        3,
        "more arcs than the 1 declared",
    ),
    ("gr", "p sp 3 1\na 1 9 3\n", 2, "vertex 9 is outside 1..=3"),
    ("gr", "p sp 3 1\na 0 1 3\n", 2, "vertex 0 is outside"),
    ("gr", "p sp 3 1\na 1 2 -4\n", 2, "negative weight -4"),
    (
        "gr",
        "p sp 3 1\na 1 2 x\n",
        2,
        "expected an integer weight, found `x`",
    ),
    (
        "gr",
        "p sp 3 1\na 1 2\n",
        2,
        "expected an integer weight, but the line ends",
    ),
    (
        "gr",
        "p sp 3 1\na 1 2 3 4\n",
        2,
        "unexpected extra field `4`",
    ),
    (
        "gr",
        "p sp 3 1\na one 2 3\n",
        2,
        "expected a source vertex id, found `one`",
    ),
    ("gr", "p sp 3 1\na 1 2 99999999999\n", 2, "larger than"),
    ("gr", "p max 3 1\n", 1, "problem type `max`"),
    ("gr", "p sp 3\n", 1, "expected the arc count"),
    ("gr", "p sp 3 1\np sp 3 1\n", 2, "second `p` line"),
    ("gr", "p sp 3 0\nx 1 2\n", 2, "unknown line type `x`"),
    ("gr", "p sp 9999999999 1\n", 1, "vertices: at most"),
    ("mtx", "", 1, "empty file"),
    ("mtx", "hello\n", 1, "expected the banner"),
    (
        "mtx",
        "%%MatrixMarket matrix array real general\n",
        1,
        "dense `array`",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate complex general\n",
        1,
        "field `complex`",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate real hermitian\n",
        1,
        "symmetry `hermitian`",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate real general\n% c\n",
        2,
        "before the `<rows> <columns> <entries>`",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate real general\n2 3 1\n",
        2,
        "square",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate real general\n0 0 0\n",
        2,
        "empty graph",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
        3,
        "ends after 1 entries but the size line 2 declares 2",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n",
        4,
        "more entries than the 1",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 4\n",
        3,
        "index 4 is outside 1..=3",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 5\n",
        3,
        "unexpected extra field `5`",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 -5\n",
        3,
        "negative value -5",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2\n",
        3,
        "but the line ends",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 nan\n",
        3,
        "not finite",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n",
        3,
        "expected a real value, found `abc`",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1.0\n",
        3,
        "above the diagonal",
    ),
    (
        "mtx",
        "%%MatrixMarket matrix coordinate real general\n3 x 1\n",
        2,
        "expected the column count, found `x`",
    ),
    ("snap", "", 1, "no edge lines"),
    ("snap", "# only comments\n\n", 2, "no edge lines"),
    ("snap", "0 1\n1\n", 2, "1 fields"),
    ("snap", "0 1\n1 2 3\n", 2, "but line 1 has 2"),
    (
        "snap",
        "0 1\n1 -2\n",
        2,
        "expected a target vertex id, found `-2`",
    ),
    ("snap", "0 1 4\n1 2 -3\n", 2, "negative weight -3"),
    ("snap", "0 1\n5000000000 1\n", 2, "larger than"),
    ("snap", "0 1\n1 2 3 4\n", 2, "4 fields"),
];

#[test]
fn malformed_inputs_name_file_line_and_expectation() {
    for &(format, text, line, words) in MALFORMED {
        let read = READERS.iter().find(|r| r.0 == format).unwrap().1;
        let e = read(text.as_bytes(), "in.file").expect_err(text);
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("in.file:{line}: ")),
            "{format} {text:?}: `{msg}` should name line {line}"
        );
        assert!(
            msg.contains(words),
            "{format} {text:?}: `{msg}` should say `{words}`"
        );
    }
}

#[test]
fn special_graphs_read() {
    // Single vertex with a self-loop; isolated vertices; duplicates.
    let el = read_dimacs("p sp 1 1\na 1 1 5\n".as_bytes(), "x").unwrap();
    assert_eq!((el.num_vertices, el.edges.clone()), (1, vec![(0, 0)]));
    let el = read_dimacs("p sp 5 0\n".as_bytes(), "x").unwrap();
    let g = el.to_csr(&BuildOptions::default()).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges()), (5, 0));
    let el = read_snap("1 2\n1 2\n2 2\n".as_bytes(), "x").unwrap();
    let g = el.to_csr(&BuildOptions::undirected_simple()).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges(), g.degree(0)), (3, 2, 0));
    let el = read_matrix_market(
        "%%MatrixMarket matrix coordinate real general\n%c\n\n2 2 2\n1 2 0.2\n2 1 7.6\n".as_bytes(),
        "x",
    )
    .unwrap();
    assert_eq!(
        el.weights,
        Some(vec![1, 8]),
        "real values round, at least 1"
    );
    // CRLF line ends.
    let el = read_dimacs("p sp 2 1\r\na 1 2 3\r\n".as_bytes(), "x").unwrap();
    assert_eq!(el.weights, Some(vec![3]));
}

#[test]
fn files_by_extension() {
    let dir = std::env::temp_dir().join(format!("occupant-graph-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let el = "geo:n=300,deg=5,shortcuts=0.02,seed=3"
        .parse::<GraphSpec>()
        .unwrap()
        .generate()
        .unwrap();
    for format in [
        GraphFormat::Dimacs,
        GraphFormat::MatrixMarket,
        GraphFormat::Snap,
    ] {
        let path = dir.join(format!("g.{}", format.extension()));
        write_graph(&path, format, &el).unwrap();
        let g = load(&path, &BuildOptions::default()).unwrap();
        assert_eq!(g, el.to_csr(&BuildOptions::default()).unwrap(), "{format}");
        let src: GraphSource = path.to_str().unwrap().parse().unwrap();
        assert_eq!(src.name(), "g");
    }
    for (name, words) in [
        ("g.xyz", "unknown graph format `.xyz`"),
        ("g.gr.gz", "compressed"),
        ("g", "no extension"),
    ] {
        let e = read_graph(&dir.join(name)).unwrap_err().to_string();
        assert!(e.contains(words) && e.contains(".mtx"), "{e}");
    }
    let e = read_graph(&dir.join("missing.gr")).unwrap_err().to_string();
    assert!(e.contains("missing.gr"), "{e}");
    assert!(create_output(&dir.join("no/such/dir/x.gr")).is_err());
    assert!("nonexistent-file".parse::<GraphSource>().is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_real_road_network_reads() {
    // DIMACS 9th challenge: the road network of Rome (1999), 3353 vertices, 8870 arcs.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rome99.gr");
    let el = read_graph(&path).unwrap();
    assert_eq!((el.num_vertices, el.edges.len()), (3353, 8870));
    let g = el.to_csr(&BuildOptions::default()).unwrap();
    let s = GraphStats::of(&g);
    assert_eq!((s.components, s.self_loops), (1, 0));
    assert!(s.diameter_estimate >= 50, "{}", s.diameter_estimate);
    let w = s.weights.unwrap();
    assert!(w.min >= 1 && w.max > 10_000, "{w:?}");
}
