//! Diagnostics: the one error type every stage returns for bad or unsupported input.
//!
//! Takes a message and, where known, the file and line it concerns; gives `file:line: message`
//! text. The CLI maps every `Error` to exit status 2 (DESIGN §9).

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub msg: String,
}

impl Error {
    pub fn new(msg: impl Into<String>) -> Error {
        Error {
            file: None,
            line: None,
            msg: msg.into(),
        }
    }
    pub fn at(file: impl Into<String>, line: u32, msg: impl Into<String>) -> Error {
        Error {
            file: Some(file.into()),
            line: Some(line),
            msg: msg.into(),
        }
    }
    pub fn in_file(file: impl Into<String>, msg: impl Into<String>) -> Error {
        Error {
            file: Some(file.into()),
            line: None,
            msg: msg.into(),
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
