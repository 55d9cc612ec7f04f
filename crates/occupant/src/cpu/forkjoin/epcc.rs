//! EPCC syncbench-style overheads of the CPU twin's constructs (the CPU side of `occupant
//! bench forkjoin`): the same program as the CUDA kernel `fj_epcc`, timed with `Instant`.

use super::{run, Team};
use crate::cpu::{ExecModel, Executor, GlobalBuffer, Launch};
use crate::model::forkjoin::{overheads, EpccConfig, EpccRow, RawRound};
use crate::{Error, NDRange, Result};
use std::time::{Duration, Instant};

fn delay(d: Duration) {
    let t0 = Instant::now();
    while t0.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// Measures every construct for each worker count of `cfg` (`delay` in ns) in one group of
/// `workers + 32` work-items under the serialized model; cycles are reported as 0.
///
/// ```
/// use occupant::model::forkjoin::EpccConfig;
/// let cfg = EpccConfig { reps: 5, delay: 100, rounds: 1, workers: vec![32], ..Default::default() };
/// let rows = occupant::cpu::forkjoin::epcc(&cfg)?;
/// assert_eq!(rows.len(), 6);
/// # Ok::<(), occupant::Error>(())
/// ```
pub fn epcc(cfg: &EpccConfig) -> Result<Vec<EpccRow>> {
    if cfg.reps == 0 || cfg.rounds == 0 {
        return Err(Error::Input(
            "EPCC needs at least one repetition and one round".into(),
        ));
    }
    let exec = Executor::new(ExecModel::Serialized);
    let d = Duration::from_nanos(cfg.delay);
    let mut rows = Vec::new();
    for &w in &cfg.workers {
        if w % 32 != 0 || !(32..=992).contains(&w) {
            return Err(Error::Input(format!(
                "EPCC worker counts are multiples of 32 in 32..=992 (got {w})"
            )));
        }
        let out = GlobalBuffer::<i64>::new(cfg.rounds * 7);
        let reps = cfg.reps;
        exec.launch_with(
            &Launch::new(NDRange::d1(w + 32, w + 32)?),
            || Team::new(256, 0),
            |item, team| {
                run(item, team, |m| {
                    for round in 0..cfg.rounds {
                        let mut t = Instant::now();
                        let mut stop = |c: usize| {
                            out.set(round * 7 + c, t.elapsed().as_nanos() as i64);
                            t = Instant::now();
                        };
                        for _ in 0..reps {
                            delay(d);
                        }
                        stop(0);
                        for _ in 0..reps {
                            m.parallel(w, |_| delay(d));
                        }
                        stop(1);
                        m.parallel(w, |t| {
                            for _ in 0..reps {
                                t.for_static(0, t.num_threads() as i64, |_| delay(d));
                            }
                        });
                        stop(2);
                        for _ in 0..reps {
                            // `parallel for`: the join is the loop's only barrier.
                            m.parallel(w, |t| {
                                t.for_static_nowait(0, t.num_threads() as i64, |_| delay(d))
                            });
                        }
                        stop(3);
                        m.parallel(w, |t| {
                            for _ in 0..reps {
                                delay(d);
                                t.barrier();
                            }
                        });
                        stop(4);
                        m.parallel(w, |t| {
                            for _ in 0..reps {
                                t.single(|| delay(d));
                            }
                        });
                        stop(5);
                        let mut total = 0usize;
                        for _ in 0..reps {
                            // `parallel reduction(+: s)`: folded at the join.
                            total += m.parallel_sum(w, |_| {
                                delay(d);
                                1u32
                            }) as usize;
                        }
                        stop(6);
                        assert_eq!(total, reps * w, "the reduction construct's sum");
                    }
                });
            },
        )?;
        let v = out.to_vec();
        let raw: Vec<RawRound> = v
            .chunks(7)
            .map(|r| std::array::from_fn(|c| (0, r[c])))
            .collect();
        rows.extend(overheads("occupant-cpu", w, reps, &raw));
    }
    Ok(rows)
}
