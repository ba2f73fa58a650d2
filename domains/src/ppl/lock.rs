//! The global PPL lock, initialisation, errors and work budgets.
//!
//! Takes nothing; gives [`lock`] (the re-entrant global lock, initialising PPL
//! on first use), [`check`] (a PPL return code as a `Result`, with the error
//! handler's message) and [`budgeted`] (one call under a work budget). Every
//! other file of [`super`] calls PPL only while holding a [`Guard`].

use std::cell::{Cell, RefCell};
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::sync::{Mutex, MutexGuard, OnceLock};

use super::ffi;
use crate::{DomainError, Result};

static PPL_LOCK: Mutex<()> = Mutex::new(());
static INIT: OnceLock<std::result::Result<(), DomainError>> = OnceLock::new();

thread_local! {
    /// Whether this thread currently holds `PPL_LOCK`.
    static HELD: Cell<bool> = const { Cell::new(false) };
    /// The last message passed to the PPL error handler on this thread.
    static LAST_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Proof that this thread holds the PPL lock. Temporaries created under a
/// guard borrow it, so they are destroyed before the lock is released.
pub(crate) struct Guard {
    outer: Option<MutexGuard<'static, ()>>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.outer.is_some() {
            HELD.with(|h| h.set(false));
        }
    }
}

/// Takes the global PPL lock (re-entrantly) and initialises PPL if needed.
pub(super) fn lock() -> Result<Guard> {
    let guard = if HELD.with(|h| h.get()) {
        Guard { outer: None }
    } else {
        let g = PPL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        HELD.with(|h| h.set(true));
        Guard { outer: Some(g) }
    };
    INIT.get_or_init(init).clone()?;
    Ok(guard)
}

fn init() -> std::result::Result<(), DomainError> {
    // SAFETY: called once, under PPL_LOCK, before any other PPL function.
    unsafe {
        let rc = ffi::ppl_initialize();
        // INVALID_ARGUMENT means "already initialised" (by someone else in
        // this process): fine for us.
        if rc < 0 && rc != ffi::ppl_enum_error_code::PPL_ERROR_INVALID_ARGUMENT as c_int {
            return Err(DomainError::Ppl {
                code: rc,
                message: "ppl_initialize failed".into(),
            });
        }
        ffi::ppl_set_error_handler(Some(on_error));
        ffi::ppl_restore_pre_PPL_rounding();
    }
    Ok(())
}

unsafe extern "C" fn on_error(_code: ffi::ppl_enum_error_code, description: *const c_char) {
    let msg = if description.is_null() {
        String::new()
    } else {
        // SAFETY: PPL passes a NUL-terminated string valid during the call.
        unsafe { CStr::from_ptr(description) }
            .to_string_lossy()
            .into_owned()
    };
    let _ = LAST_ERROR.try_with(|e| {
        if let Ok(mut slot) = e.try_borrow_mut() {
            *slot = Some(msg);
        }
    });
}

fn error_name(rc: c_int) -> &'static str {
    use ffi::ppl_enum_error_code as E;
    const NAMES: [(E, &str); 11] = [
        (E::PPL_ERROR_OUT_OF_MEMORY, "out of memory"),
        (E::PPL_ERROR_INVALID_ARGUMENT, "invalid argument"),
        (E::PPL_ERROR_DOMAIN_ERROR, "domain error"),
        (E::PPL_ERROR_LENGTH_ERROR, "length error"),
        (E::PPL_ARITHMETIC_OVERFLOW, "arithmetic overflow"),
        (E::PPL_STDIO_ERROR, "stdio error"),
        (E::PPL_ERROR_INTERNAL_ERROR, "internal error"),
        (
            E::PPL_ERROR_UNKNOWN_STANDARD_EXCEPTION,
            "unknown standard exception",
        ),
        (E::PPL_ERROR_UNEXPECTED_ERROR, "unexpected error"),
        (E::PPL_TIMEOUT_EXCEPTION, "timeout"),
        (E::PPL_ERROR_LOGIC_ERROR, "logic error"),
    ];
    NAMES
        .iter()
        .find(|(e, _)| *e as c_int == rc)
        .map_or("unknown error", |(_, n)| n)
}

/// Turns a PPL return code into a `Result`, picking up the handler's message.
pub(super) fn check(rc: c_int) -> Result<c_int> {
    if rc >= 0 {
        return Ok(rc);
    }
    let msg = LAST_ERROR
        .try_with(|e| e.try_borrow_mut().ok().and_then(|mut s| s.take()))
        .ok()
        .flatten()
        .unwrap_or_default();
    if rc == ffi::ppl_enum_error_code::PPL_TIMEOUT_EXCEPTION as c_int {
        return Err(DomainError::Timeout);
    }
    Err(DomainError::Ppl {
        code: rc,
        message: format!("{}: {msg}", error_name(rc)),
    })
}

/// Runs one PPL call under a work budget in PPL's deterministic weight
/// units (0: unlimited). Call with the lock held: the timeout is global PPL
/// state, set from the value's own budget around each call and always reset.
pub(super) fn budgeted(budget: u64, f: impl FnOnce() -> c_int) -> c_int {
    if budget == 0 {
        return f();
    }
    let weight = std::os::raw::c_ulong::try_from(budget).unwrap_or(std::os::raw::c_ulong::MAX);
    // SAFETY: global timeout state, protected by the lock; always reset.
    unsafe {
        let rc = ffi::ppl_set_deterministic_timeout(weight, 0);
        if rc < 0 {
            return rc;
        }
        let rc = f();
        ffi::ppl_reset_deterministic_timeout();
        rc
    }
}
