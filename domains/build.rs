//! Build script: generates Rust bindings for PPL's C interface (`ppl_c.h`) with
//! bindgen and links the PPL/GMP libraries.
//!
//! The header lives under the multiarch include directory on Debian
//! (`/usr/include/<triple>/ppl_c.h`); we ask the C compiler for the triple
//! instead of hard-coding it, and `PPL_INCLUDE_DIR` overrides the search.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn multiarch() -> Option<String> {
    let cc = env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(cc).arg("-print-multiarch").output().ok()?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn find_header_dir() -> PathBuf {
    if let Ok(dir) = env::var("PPL_INCLUDE_DIR") {
        return PathBuf::from(dir);
    }
    let mut candidates = Vec::new();
    if let Some(triple) = multiarch() {
        candidates.push(PathBuf::from(format!("/usr/include/{triple}")));
    }
    if let Ok(target) = env::var("TARGET") {
        // Debian triples drop the vendor part: x86_64-unknown-linux-gnu -> x86_64-linux-gnu.
        let t = target.replace("-unknown-", "-");
        candidates.push(PathBuf::from(format!("/usr/include/{t}")));
    }
    candidates.push(PathBuf::from("/usr/include"));
    candidates.push(PathBuf::from("/usr/local/include"));
    for c in &candidates {
        if c.join("ppl_c.h").is_file() {
            return c.clone();
        }
    }
    panic!(
        "ppl_c.h not found (looked in {candidates:?}); install libppl-dev or set PPL_INCLUDE_DIR"
    );
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PPL_INCLUDE_DIR");
    let dir = find_header_dir();
    let header = dir.join("ppl_c.h");
    println!("cargo:rerun-if-changed={}", header.display());

    let bindings = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .clang_arg(format!("-I{}", dir.display()))
        .allowlist_type("ppl_.*")
        .allowlist_function("ppl_.*")
        .allowlist_var("PPL_.*")
        .allowlist_function("__gmpz_.*")
        .rustified_enum("ppl_enum_.*")
        .layout_tests(false)
        .generate_comments(false)
        .generate()
        .expect("bindgen failed on ppl_c.h");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    bindings
        .write_to_file(Path::new(&out).join("ppl_bindings.rs"))
        .expect("writing bindings");

    for lib in ["ppl_c", "ppl", "gmpxx", "gmp", "stdc++"] {
        println!("cargo:rustc-link-lib={lib}");
    }
}
