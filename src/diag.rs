//! Diagnostics: the one error type every stage returns for bad or unsupported input.
//!
//! Takes a message and, where known, the file and line it concerns; gives `file:line: message`
//! text. The CLI maps every `Error` to exit status 2 (DESIGN §9). An error caused by a process
//! that dizy started running into a resource limit says which ([`Error::limit`]), so that callers
//! decide on the kind, not on the text.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub msg: String,
    /// The resource limit a process started by dizy ran into, when that is the cause.
    pub limit: Option<Limit>,
}

/// A resource limit of a process started by dizy (see `resources::Limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The address-space limit, from `--max-memory`.
    Memory,
    /// The CPU-time limit, from `--timeout`.
    CpuTime,
}

impl Error {
    pub fn new(msg: impl Into<String>) -> Error {
        Error {
            file: None,
            line: None,
            msg: msg.into(),
            limit: None,
        }
    }
    pub fn at(file: impl Into<String>, line: u32, msg: impl Into<String>) -> Error {
        Error {
            file: Some(file.into()),
            line: Some(line),
            msg: msg.into(),
            limit: None,
        }
    }
    pub fn in_file(file: impl Into<String>, msg: impl Into<String>) -> Error {
        Error {
            file: Some(file.into()),
            line: None,
            msg: msg.into(),
            limit: None,
        }
    }
    /// A process dizy started for `file` ran into `limit`.
    pub fn limit_hit(file: impl Into<String>, limit: Limit, msg: impl Into<String>) -> Error {
        Error {
            limit: Some(limit),
            ..Error::in_file(file, msg)
        }
    }
    /// Fill in the file if the error does not name one yet.
    pub fn with_file(mut self, file: &str) -> Error {
        if self.file.is_none() {
            self.file = Some(file.to_string());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line}: {}", self.msg),
            (Some(file), None) => write!(f, "{file}: {}", self.msg),
            _ => write!(f, "{}", self.msg),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
