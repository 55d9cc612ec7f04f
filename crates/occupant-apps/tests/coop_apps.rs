//! The work-stealing apps as cooperative kernels, verified under kills and forks (random churn
//! and real launches taking units) under every execution model, and as persistent kernels.

use occupant::cpu::coop::{Churn, CoopConfig, CoopScheduler};
use occupant::cpu::{ExecModel, Executor};
use occupant::NDRange;
use occupant_apps::coop::{game, octree, Runner};
use std::sync::atomic::{AtomicBool, Ordering};

fn models() -> Vec<ExecModel> {
    vec![
        ExecModel::OccupancyBound { compute_units: 3 },
        ExecModel::Fair,
        ExecModel::Serialized,
        ExecModel::Adversarial { seed: 5 },
    ]
}

fn scheduler(exec: &Executor, model: ExecModel, seed: u64) -> CoopScheduler<'_> {
    CoopScheduler::new(
        exec,
        CoopConfig {
            churn: Some(Churn {
                seed,
                kill_per_mille: 300,
            }),
            ..CoopConfig::new(model)
        },
    )
}

#[test]
fn octree_matches_sequential_under_churn_every_model() {
    let p = octree::OctreeParams {
        points: 60_000,
        max_points: 4,
        ..Default::default()
    };
    let reference = octree::sequential(&p);
    let exec = Executor::default();
    let mut kills = 0;
    for model in models() {
        let sched = scheduler(&exec, model, 17);
        let run = octree::build(
            &p,
            &Runner::Cooperative {
                scheduler: &sched,
                groups: 6,
            },
        )
        .unwrap_or_else(|e| panic!("{model}: {e}"));
        octree::verify(&p, &run.leaves, &reference).unwrap_or_else(|e| panic!("{model}: {e}"));
        kills += run.info.coop.unwrap().stats.kills;
    }
    // Whether one run sees a kill depends on the host's scheduling; over all models it does.
    assert!(kills > 0, "churn never killed");
    let run = octree::build(
        &p,
        &Runner::Persistent {
            executor: &exec,
            groups: 4,
        },
    )
    .unwrap();
    octree::verify(&p, &run.leaves, &reference).unwrap();
}

#[test]
fn game_matches_negamax_under_churn_every_model() {
    let root = game::Position::from_moves(&[3, 3, 2]).unwrap();
    let p = game::GameParams { depth: 6, split: 2 };
    let reference = game::sequential(&root, &p);
    assert_eq!(reference.value, game::negamax(&root, p.depth));
    let exec = Executor::default();
    for model in models() {
        let sched = scheduler(&exec, model, 23);
        let run = game::search(
            &root,
            &p,
            &Runner::Cooperative {
                scheduler: &sched,
                groups: 5,
            },
        )
        .unwrap_or_else(|e| panic!("{model}: {e}"));
        assert_eq!(run.value, reference, "{model}");
    }
    let run = game::search(
        &root,
        &p,
        &Runner::Persistent {
            executor: &exec,
            groups: 3,
        },
    )
    .unwrap();
    assert_eq!(run.value, reference);
}

/// Real multitasking: launches from another thread keep taking units from the app and
/// giving them back; the result stays exact.
#[test]
fn apps_stay_exact_while_other_launches_take_units() {
    let exec = Executor::default();
    let sched = CoopScheduler::new(
        &exec,
        CoopConfig::new(ExecModel::OccupancyBound { compute_units: 4 }),
    );
    let p = octree::OctreeParams {
        points: 60_000,
        max_points: 4,
        ..Default::default()
    };
    let reference = octree::sequential(&p);
    let stop = AtomicBool::new(false);
    let mut others = 0;
    std::thread::scope(|s| {
        let app = s.spawn(|| {
            let r = octree::build(
                &p,
                &Runner::Cooperative {
                    scheduler: &sched,
                    groups: 4,
                },
            );
            stop.store(true, Ordering::Relaxed);
            r
        });
        let mut units = 1;
        while !stop.load(Ordering::Relaxed) {
            if sched
                .launch_other(units, NDRange::groups(units, 1).unwrap(), |_| {})
                .is_ok()
            {
                others += 1;
            }
            units = units % 3 + 1;
        }
        let run = app.join().unwrap().unwrap();
        octree::verify(&p, &run.leaves, &reference).unwrap();
    });
    assert!(others > 0);
}

#[test]
fn bad_parameters_are_errors() {
    let exec = Executor::default();
    let r = Runner::Persistent {
        executor: &exec,
        groups: 2,
    };
    let p = octree::OctreeParams {
        points: 0,
        ..Default::default()
    };
    assert!(octree::build(&p, &r).is_err());
    let g = game::GameParams { depth: 2, split: 3 };
    assert!(game::search(&game::Position::new(), &g, &r).is_err());
    assert!(game::Position::from_moves(&[9]).is_none());
}

/// BFS and SSSP in cooperative form: every barrier a resizing barrier (regular and query),
/// exact against the sequential references under churn in every execution model.
#[test]
fn graph_apps_exact_under_churn_both_barriers_every_model() {
    use occupant::model::coop::ResizeVariant;
    use occupant_apps::coop::graph::{check, run, GraphApp};
    use occupant_apps::graph::{BuildOptions, GraphSource};
    let graphs: Vec<_> = ["grid:w=40,h=30,seed=2", "rmat:scale=10,ef=8,seed=3"]
        .iter()
        .map(|s| {
            s.parse::<GraphSource>()
                .unwrap()
                .load(&BuildOptions::default())
                .unwrap()
        })
        .collect();
    let exec = Executor::default();
    for model in models() {
        for variant in [ResizeVariant::Regular, ResizeVariant::Query] {
            let sched = CoopScheduler::new(
                &exec,
                CoopConfig {
                    variant,
                    churn: Some(Churn {
                        seed: 9,
                        kill_per_mille: 300,
                    }),
                    ..CoopConfig::new(model)
                },
            );
            for (gi, g) in graphs.iter().enumerate() {
                for app in [GraphApp::Bfs, GraphApp::Sssp] {
                    let (out, rep) = run(app, g, 0, &sched, 5)
                        .unwrap_or_else(|e| panic!("{model} {variant} {app:?} g{gi}: {e}"));
                    check(app, g, 0, &out)
                        .unwrap_or_else(|e| panic!("{model} {variant} {app:?} g{gi}: {e}"));
                    assert!(rep.stats.barriers > 0);
                }
            }
        }
    }
}
