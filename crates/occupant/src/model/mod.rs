//! The backend-neutral vocabulary: launch shapes, work-item ids, errors, watchdog settings.

pub mod coop;
mod error;
pub mod forkjoin;
mod ndrange;
mod shape_table;
mod summary;
mod watchdog;

pub use error::{Error, Result, WaitSite};
pub use ndrange::{delinearize, linearize, Dim3, NDRange};
pub use shape_table::{
    LaunchShape, ShapeClass, ShapeMeasurement, ShapeTable, NEIGHBOURS, PARTICIPANT_WEIGHT,
};
pub use summary::{median, Summary};
pub use watchdog::Watchdog;
