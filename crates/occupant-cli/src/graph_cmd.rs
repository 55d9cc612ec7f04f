//! `occupant graph gen|info`: generate a graph to a file; print a graph's statistics.

use clap::{Args, Subcommand};
use occupant_apps::graph::{
    create_output, write_graph_to, BuildOptions, GraphFormat, GraphSource, GraphSpec, GraphStats,
    SPEC_FORMS,
};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// `occupant graph ...`
#[derive(Subcommand)]
pub enum GraphCommand {
    /// Generate a graph from a spec and write it to a file.
    #[command(after_help = format!("SPEC forms:\n{SPEC_FORMS}"))]
    Gen(GenArgs),
    /// Print a graph's statistics (vertices, edges, degrees, components, diameter estimate).
    #[command(after_help = format!("SPEC forms:\n{SPEC_FORMS}"))]
    Info(InfoArgs),
}

/// Arguments of `occupant graph gen`.
#[derive(Args)]
pub struct GenArgs {
    /// The generator spec, e.g. `rmat:scale=22,ef=16,seed=1` or `grid:2000x2000`.
    spec: String,
    /// The output file.
    #[arg(long, short)]
    output: PathBuf,
    /// gr, mtx or snap (default: from the output's extension).
    #[arg(long)]
    format: Option<String>,
}

/// Arguments of `occupant graph info`.
#[derive(Args)]
pub struct InfoArgs {
    /// A graph file (.gr, .mtx, .txt/.snap/.el).
    #[arg(conflicts_with = "gen", required_unless_present = "gen")]
    file: Option<PathBuf>,
    /// A generator spec instead of a file.
    #[arg(long)]
    gen: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs a `graph` subcommand.
pub fn run(cmd: &GraphCommand) -> Result<(), String> {
    match cmd {
        GraphCommand::Gen(a) => gen(a),
        GraphCommand::Info(a) => info(a),
    }
}

fn gen(a: &GenArgs) -> Result<(), String> {
    let spec: GraphSpec = a.spec.parse().map_err(|e| format!("{e}"))?;
    let format = match &a.format {
        Some(f) => f.parse::<GraphFormat>()?,
        None => GraphFormat::from_path(&a.output)
            .map_err(|e| format!("{e}\n(or name the format with --format gr|mtx|snap)"))?,
    };
    // Fail on a bad output path before generating.
    let file = create_output(&a.output).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let el = spec.generate().map_err(|e| e.to_string())?;
    let gen_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    write_graph_to(file, &a.output, format, &el).map_err(|e| e.to_string())?;
    let write_s = t.elapsed().as_secs_f64();
    println!(
        "{spec}: {} vertices, {} {} edges, generated in {gen_s:.2} s; wrote {} ({format}) in {write_s:.2} s",
        el.num_vertices,
        el.edges.len(),
        if el.undirected { "undirected" } else { "directed" },
        a.output.display()
    );
    Ok(())
}

fn info(a: &InfoArgs) -> Result<(), String> {
    let source = match (&a.file, &a.gen) {
        (Some(f), None) => GraphSource::File(f.clone()),
        (None, Some(s)) => GraphSource::Spec(s.parse().map_err(|e| format!("{e}"))?),
        _ => return Err("give a graph FILE or --gen SPEC".into()),
    };
    let t = Instant::now();
    let g = source
        .load(&BuildOptions::default())
        .map_err(|e| e.to_string())?;
    let load_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let stats = GraphStats::of(&g);
    let stats_s = t.elapsed().as_secs_f64();
    if a.json {
        let out = json!({
            "source": source.to_string(),
            "load_seconds": load_s,
            "stats_seconds": stats_s,
            "stats": stats,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
    } else {
        println!("{source} (loaded in {load_s:.2} s, statistics in {stats_s:.2} s)");
        print!("{stats}");
    }
    Ok(())
}
