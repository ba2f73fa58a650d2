//! Diagnostics: the one error type every stage returns, and the typed notes of a report.
//!
//! Takes a kind, a message and, where known, the file and line it concerns; gives
//! `file:line: message` text. Callers decide on the [`ErrorKind`] — a verdict never depends on
//! how a message is worded. The CLI maps every `Error` to exit status 2 (DESIGN §9).

use std::fmt;

/// What went wrong, as far as a caller needs to decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input cannot be read or is not C (syntax, encoding, size).
    BadInput,
    /// A construct dizy does not model soundly (the function is rejected, the file goes on).
    Unsupported,
    /// A name the code uses is declared nowhere it can see, or its declaration was guessed
    /// (typically it lives in a missing header): unsupported, with a hint to give the headers.
    Undeclared,
    /// Work stopped at a limit: no verdict, and none is claimed.
    Stopped(Stop),
    /// A bug in dizy, or a failure of its environment (a thread, a temporary file).
    Internal,
}

/// Which limit stopped the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// `--timeout` (wall clock).
    Timeout,
    /// `--max-memory` (resident size of dizy).
    Memory,
    /// The analysis' fixed step or size bounds (worklist steps, dimensions, states).
    Size,
    /// A process dizy started ran into its limit.
    Child(Limit),
}

/// A resource limit of a process started by dizy (see `resources::ChildLimits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The address-space limit, from `--max-memory`.
    Memory,
    /// The CPU-time limit, from `--timeout`.
    CpuTime,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub msg: String,
}

impl Error {
    pub fn new(kind: ErrorKind, msg: impl Into<String>) -> Error {
        Error {
            kind,
            file: None,
            line: None,
            msg: msg.into(),
        }
    }
    pub fn bad_input(msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::BadInput, msg)
    }
    pub fn unsupported(msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unsupported, msg)
    }
    pub fn stopped(stop: Stop, msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::Stopped(stop), msg)
    }
    pub fn internal(msg: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, msg)
    }
    /// An unsupported construct at `file:line` (the frontend's most common error).
    pub fn at(file: impl Into<String>, line: u32, msg: impl Into<String>) -> Error {
        Error::unsupported(msg).located(file, Some(line))
    }
    /// An unsupported construct in `file`, at no particular line.
    pub fn in_file(file: impl Into<String>, msg: impl Into<String>) -> Error {
        Error::unsupported(msg).located(file, None)
    }
    /// A process dizy started for `file` ran into `limit`.
    pub fn limit_hit(file: impl Into<String>, limit: Limit, msg: impl Into<String>) -> Error {
        Error::stopped(Stop::Child(limit), msg).located(file, None)
    }
    /// The same error at `file` (and `line`).
    pub fn located(mut self, file: impl Into<String>, line: Option<u32>) -> Error {
        self.file = Some(file.into());
        self.line = line;
        self
    }
    /// The same error with another kind.
    pub fn with_kind(mut self, kind: ErrorKind) -> Error {
        self.kind = kind;
        self
    }
    /// Fill in the file if the error does not name one yet.
    pub fn with_file(mut self, file: &str) -> Error {
        if self.file.is_none() {
            self.file = Some(file.to_string());
        }
        self
    }
    /// Whether work stopped at a limit (rather than on the input).
    pub fn is_stop(&self) -> bool {
        matches!(self.kind, ErrorKind::Stopped(_))
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

/// What a note of a report is about.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum NoteKind {
    /// The semantics a verdict holds under (integer and float model, inputs, observables).
    Semantics,
    /// A repair or guess the frontend made (unknown type, missing header, blanked macro).
    Assumption,
    /// Why a function whose own text did not change is analysed.
    Change,
    /// A declaration that differs between the versions (not an equal input).
    Input,
    /// How the analysis approximated (unknown calls, renamed locals, inlining, fallbacks).
    Analysis,
    /// Why termination was not proven.
    Termination,
    /// The witness search and its validation.
    Witness,
    /// A function that is listed but was not analysed, and why.
    NotAnalysed,
}

/// A typed note: which file and line it is about (when it is about one), what about, and the
/// text for people. Callers route notes by these fields, never by their wording.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Note {
    pub kind: NoteKind,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub text: String,
}

impl Note {
    pub fn new(kind: NoteKind, text: impl Into<String>) -> Note {
        Note {
            kind,
            file: None,
            line: None,
            text: text.into(),
        }
    }
    /// A note about `file` as a whole.
    pub fn in_file(kind: NoteKind, file: impl Into<String>, text: impl Into<String>) -> Note {
        Note {
            file: Some(file.into()),
            ..Note::new(kind, text)
        }
    }
    /// A note about one line of `file`.
    pub fn at(kind: NoteKind, file: impl Into<String>, line: u32, text: impl Into<String>) -> Note {
        Note {
            file: Some(file.into()),
            line: Some(line),
            ..Note::new(kind, text)
        }
    }
    /// The line of `file` this note is about, if it is about one.
    pub fn line_in(&self, file: &str) -> Option<u32> {
        (self.file.as_deref() == Some(file)).then_some(self.line)?
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line}: {}", self.text),
            (Some(file), None) => write!(f, "{file}: {}", self.text),
            _ => write!(f, "{}", self.text),
        }
    }
}
