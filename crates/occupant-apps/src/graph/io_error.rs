//! Errors of graph reading, writing and loading, each naming the file (and line).

use super::gen::GenError;
use super::spec::SpecError;
use super::CsrError;

/// Why a graph could not be read, written, generated or built.
#[derive(Debug, thiserror::Error)]
pub enum GraphIoError {
    /// The operating system refused (open, read, write).
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file's content is not what its format requires.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// 1-based line number.
        line: u64,
        /// What was found and what was expected.
        message: String,
    },
    /// The format cannot be told or is not supported.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The edges read do not make a CSR graph (too many edges).
    #[error("{path}: {source}")]
    Build {
        /// The file or spec.
        path: String,
        /// Why.
        source: CsrError,
    },
    /// A generator refused its parameters.
    #[error(transparent)]
    Gen(#[from] GenError),
    /// A spec string did not parse.
    #[error(transparent)]
    Spec(#[from] SpecError),
}

impl GraphIoError {
    pub(crate) fn parse(path: &str, line: u64, message: impl Into<String>) -> Self {
        GraphIoError::Parse {
            path: path.to_string(),
            line,
            message: message.into(),
        }
    }

    pub(crate) fn io(path: &str, source: std::io::Error) -> Self {
        GraphIoError::Io {
            path: path.to_string(),
            source,
        }
    }

    /// The line number, for parse errors.
    pub fn line(&self) -> Option<u64> {
        match self {
            GraphIoError::Parse { line, .. } => Some(*line),
            _ => None,
        }
    }
}
