//! The architecture, checked: the engine stays pure, and modules depend on each other only
//! downwards (see the README's Architecture section). Each rule reads the source with comments
//! and string literals blanked out, so prose may name anything.
//!
//! How the rules were checked to fail: adding `use std::collections::HashMap;` to
//! `src/scheduler/queue.rs` makes `the_engine_names_no_io_clock_or_hash_map` fail with
//! "src/scheduler/queue.rs:12: `HashMap`"; adding `use crate::kube::watch;` to
//! `src/simulate/runner.rs` makes `modules_depend_only_downwards` fail with
//! "src/simulate/runner.rs: simulate must not use crate::kube"; adding
//! `use super::preemption::Victim;` to `src/scheduler/fair_sharing.rs` makes
//! `preemption_and_fair_sharing_depend_one_way` fail with "src/scheduler/fair_sharing.rs:14:
//! `super::preemption`". Adding `use crate::simulate::result::History;` to
//! `src/controller/queues.rs` makes it fail with "src/controller/queues.rs: controller must
//! not use crate::simulate"; adding
//! `let _ = std::time::SystemTime::now();` to `src/policy/workload.rs` makes
//! `shared_rules_take_time_as_a_parameter` fail with "src/policy/workload.rs:NN:
//! `SystemTime`"; adding `use crate::kube::apply::Writer;` to `src/controller/model/mod.rs`
//! makes `the_controller_model_holds_no_io_handles` fail with
//! "src/controller/model/mod.rs:NN: `Writer`"; adding `use crate::api::v1beta2::Workload;` to
//! `src/manifests/convert.rs` makes `api_versions_are_resolved_at_the_edges` fail with
//! "src/manifests/convert.rs:NN: `v1beta2`". The command-layer rules, likewise:
//! `use crate::commands::Cli;` in `src/output/mod.rs` and in `src/cli.rs` failed with
//! "src/output/mod.rs: output must not use crate::commands" and "src/cli.rs: cli must not use
//! crate::commands"; `use crate::{cli::GlobalArgs as _G};` in `src/kube/mod.rs` (a group)
//! with "src/kube/mod.rs: kube must not use crate::cli"; `use kube::Api as _A;` in
//! `src/commands/list.rs` made `commands_make_no_api_calls` fail with
//! "src/commands/list.rs:184: the `kube` crate" and "...:184: `Api`"; ten more lines in
//! `src/commands/create.rs` made `command_files_are_small` fail with
//! "src/commands/create.rs: 257 lines". `let _ = std::time::Instant::now();` in
//! `decide()` (`src/kube/lease/decide.rs`) made `the_election_rule_is_pure` fail with
//! "src/kube/lease/decide.rs:NN: `Instant::now`"; `use rcgen::KeyPair as _K;` in
//! `src/controller/http.rs` made `the_metrics_serving_key_stays_in_one_file` fail with
//! "src/controller/http.rs:NN: `rcgen`". All were removed again.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir` (relative to the repository), sorted.
fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(p) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    let base = root().join(dir);
    if base.is_file() {
        out.push(base);
    } else {
        walk(&base, &mut out);
    }
    out.sort();
    out
}

/// The source with comments, string and char literals replaced by spaces (newlines kept, so
/// line numbers still match).
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |out: &mut String, c: u8| out.push(if c == b'\n' { '\n' } else { ' ' });
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == b'r' && matches!(b.get(i + 1), Some(b'"') | Some(b'#')) {
            // Raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c as char);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            for _ in i..=j {
                out.push(' ');
            }
            i = j + 1;
            while i < b.len() && !b[i..].starts_with(&close) {
                blank(&mut out, b[i]);
                i += 1;
            }
            for _ in 0..close.len().min(b.len() - i) {
                out.push(' ');
            }
            i += close.len();
        } else if c == b'"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == b'\'' && (b.get(i + 2) == Some(&b'\'') || (b.get(i + 1) == Some(&b'\\'))) {
            // A char literal ('x' or '\n'); lifetimes ('a) are left alone.
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                if b[i] == b'\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Lines (1-based) where `word` appears as a whole identifier (or path prefix such as
/// `crate::kube`).
fn occurrences(code: &str, word: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut start = 0;
        while let Some(pos) = line[start..].find(word) {
            let at = start + pos;
            let before = line[..at].chars().next_back();
            let after = line[at + word.len()..].chars().next();
            if before.is_none_or(|c| !is_ident(c)) && after.is_none_or(|c| !is_ident(c)) {
                lines.push(n + 1);
                break;
            }
            start = at + word.len();
        }
    }
    lines
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap_or(p)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn the_engine_names_no_io_clock_or_hash_map() {
    // The engine is pure and deterministic: no API types, no runtime, no clock, no randomness,
    // no iteration in hash order.
    const FORBIDDEN: &[&str] = &[
        "kube",
        "kube_core",
        "k8s_openapi",
        "tokio",
        "clap",
        "HashMap",
        "HashSet",
        "SystemTime",
        "Instant",
        "rand",
        "thread_rng",
    ];
    let mut found = Vec::new();
    for f in rust_files("src/scheduler") {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        for w in FORBIDDEN {
            for line in occurrences(&code, w) {
                found.push(format!("{}:{line}: `{w}`", rel(&f)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the engine must stay pure:\n{}",
        found.join("\n")
    );
}

#[test]
fn shared_rules_take_time_as_a_parameter() {
    // The status transitions, the Job integration and the workload policy are shared by
    // `simulate` (virtual time) and the controller: they read no clock and do no I/O.
    const FORBIDDEN: &[&str] = &["SystemTime", "Instant", "tokio", "kube", "rand"];
    let mut found = Vec::new();
    for dir in ["src/status", "src/integration", "src/policy"] {
        for f in rust_files(dir) {
            let code = code_only(&std::fs::read_to_string(&f).unwrap());
            for w in FORBIDDEN {
                for line in occurrences(&code, w) {
                    found.push(format!("{}:{line}: `{w}`", rel(&f)));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "shared rules must stay pure:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_election_rule_is_pure() {
    // `src/kube/lease/decide.rs` decides acquire / renew / wait / lost from the Lease as read,
    // the candidate's memory and the time it is given; the loop (`elector.rs`) does the I/O.
    // Its unit tests (after `#[cfg(test)]`) may read the clock to get an instant.
    const FORBIDDEN: &[&str] = &[
        "tokio",
        "kube",
        "Api",
        "Client",
        "SystemTime",
        "Instant::now",
        "sleep",
    ];
    let f = root().join("src/kube/lease/decide.rs");
    let code = code_only(&std::fs::read_to_string(&f).unwrap());
    let rule = code.split("#[cfg(test)]").next().unwrap_or_default();
    let mut found = Vec::new();
    for w in FORBIDDEN {
        for line in occurrences(rule, w) {
            found.push(format!("{}:{line}: `{w}`", rel(&f)));
        }
    }
    assert!(
        found.is_empty(),
        "the election's decision must stay pure:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_controller_model_holds_no_io_handles() {
    // The model decides; the shell (`src/controller/shell.rs`) performs. No client, channel,
    // task, store, registry or wall clock in the model: time comes in with every input.
    const FORBIDDEN: &[&str] = &[
        "tokio",
        "Client",
        "Api",
        "Writer",
        "Stores",
        "Store",
        "Metrics",
        "UnboundedSender",
        "mpsc",
        "SystemTime",
        "crate::kube::apply",
        "crate::kube::lease",
        "crate::kube::client",
    ];
    let mut found = Vec::new();
    for f in rust_files("src/controller/model") {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        for w in FORBIDDEN {
            for line in occurrences(&code, w) {
                found.push(format!("{}:{line}: `{w}`", rel(&f)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the controller model must stay pure:\n{}",
        found.join("\n")
    );
}

#[test]
fn api_versions_are_resolved_at_the_edges() {
    // Documents become the internal (v1beta1) form when read (`src/manifests/kueue_documents.rs`)
    // and go back to their own version when written (`src/simulate/written.rs`); what is in
    // between, the engine adapter included, never names v1beta2 or its conversion.
    const FORBIDDEN: &[&str] = &["v1beta2", "api::convert"];
    let mut files = rust_files("src/scheduler");
    for dir in ["src/status", "src/explain", "src/policy", "src/integration"] {
        files.extend(rust_files(dir));
    }
    for f in [
        "src/manifests/convert.rs",
        "src/manifests/job.rs",
        "src/manifests/pod.rs",
        "src/simulate/runner.rs",
        "src/simulate/result.rs",
        "src/simulate/edits.rs",
    ] {
        files.extend(rust_files(f));
    }
    let mut found = Vec::new();
    for f in files {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        for w in FORBIDDEN {
            for line in occurrences(&code, w) {
                found.push(format!("{}:{line}: `{w}`", rel(&f)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "only the loader and the output writer know about versions:\n{}",
        found.join("\n")
    );
}

/// `(module, modules it must not use)`. A module is a directory or file under `src/`.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "scheduler",
        &[
            "api",
            "manifests",
            "simulate",
            "explain",
            "cli",
            "commands",
            "output",
            "kube",
            "controller",
            "metrics",
        ],
    ),
    (
        "api",
        &[
            "scheduler",
            "manifests",
            "simulate",
            "explain",
            "cli",
            "commands",
            "output",
            "kube",
            "controller",
        ],
    ),
    (
        "manifests",
        &[
            "simulate",
            "explain",
            "cli",
            "commands",
            "output",
            "kube",
            "controller",
        ],
    ),
    (
        "status",
        &[
            "simulate",
            "explain",
            "cli",
            "commands",
            "output",
            "kube",
            "controller",
            "metrics",
        ],
    ),
    (
        "integration",
        &[
            "simulate",
            "explain",
            "cli",
            "commands",
            "output",
            "kube",
            "controller",
            "metrics",
            "policy",
        ],
    ),
    (
        "policy",
        &[
            "simulate",
            "explain",
            "cli",
            "commands",
            "output",
            "kube",
            "controller",
            "metrics",
            "integration",
        ],
    ),
    (
        "simulate",
        &["explain", "cli", "commands", "output", "kube", "controller"],
    ),
    (
        "explain",
        &["cli", "commands", "output", "kube", "controller"],
    ),
    (
        "metrics",
        &["cli", "commands", "output", "kube", "controller"],
    ),
    // What the commands show is data, computed without the command line or the cluster.
    ("view", &["cli", "commands", "output", "kube", "controller"]),
    // The command layer: `commands` on top, then `output` (words) and `complete` (what
    // completion offers), then `cli` (global flags), with `kube` beside them, talking only
    // to the API server. The status writer is `crate::status`, not `simulate`'s: the live
    // side never imports the offline runner.
    ("output", &["commands"]),
    ("complete", &["commands", "output", "kube"]),
    ("cli", &["commands"]),
    (
        "kube",
        &[
            "simulate",
            "explain",
            "controller",
            "cli",
            "commands",
            "output",
        ],
    ),
    ("controller", &["simulate", "explain", "commands", "output"]),
];

/// The top-level modules a file names through `crate::`: `crate::kube::x` and each first
/// segment of a group, `crate::{cli::GlobalArgs, kube}`.
fn crate_modules_used(code: &str) -> Vec<String> {
    let ident_at = |rest: &str| -> String { rest.chars().take_while(|c| is_ident(*c)).collect() };
    let mut used = Vec::new();
    let mut start = 0;
    while let Some(pos) = code[start..].find("crate::") {
        let at = start + pos;
        start = at + "crate::".len();
        if code[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = &code[start..];
        if let Some(group) = rest.strip_prefix('{') {
            // The first segment after `{` and after each `,` at depth 1.
            let mut depth = 1;
            let mut expect_segment = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => break,
                    '}' => depth -= 1,
                    ',' if depth == 1 => expect_segment = true,
                    c if expect_segment && is_ident(c) => {
                        used.push(ident_at(&group[i..]));
                        expect_segment = false;
                    }
                    _ => {}
                }
            }
        } else {
            used.push(ident_at(rest));
        }
    }
    used
}

#[test]
fn modules_depend_only_downwards() {
    let mut found = Vec::new();
    for (module, banned) in LAYERS {
        let mut files = rust_files(&format!("src/{module}"));
        files.extend(rust_files(&format!("src/{module}.rs")));
        assert!(!files.is_empty(), "src/{module} has no files");
        for f in files {
            let code = code_only(&std::fs::read_to_string(&f).unwrap());
            let used = crate_modules_used(&code);
            for b in *banned {
                if used.iter().any(|u| u == b) {
                    found.push(format!("{}: {module} must not use crate::{b}", rel(&f)));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Fair sharing's shares and admission order sit below preemption: fair-sharing preemption
/// reads shares, never the other way round. Classical and fair-sharing preemption share
/// only `preemption::common`, never each other's helpers.
#[test]
fn preemption_and_fair_sharing_depend_one_way() {
    const RULES: &[(&str, &[&str])] = &[
        (
            "src/scheduler/fair_sharing.rs",
            &["super::preemption", "scheduler::preemption"],
        ),
        (
            "src/scheduler/preemption/classical.rs",
            &["super::fair_sharing", "preemption::fair_sharing"],
        ),
        (
            "src/scheduler/preemption/fair_sharing.rs",
            &["super::classical", "preemption::classical"],
        ),
    ];
    let mut found = Vec::new();
    for (file, banned) in RULES {
        let files = rust_files(file);
        assert_eq!(files.len(), 1, "{file} is gone: update this rule");
        let code = code_only(&std::fs::read_to_string(&files[0]).unwrap());
        for b in *banned {
            for line in occurrences(&code, b) {
                found.push(format!("{file}:{line}: `{b}`"));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Lines (1-based) where the path `prefix` (such as `kube::`) starts a path of its own:
/// not preceded by an identifier or `::`, so `crate::kube::` and `KueueApi::` do not count.
fn path_starts(code: &str, prefix: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut start = 0;
        while let Some(pos) = line[start..].find(prefix) {
            let at = start + pos;
            let before = &line[..at];
            if !before.ends_with("::") && before.chars().next_back().is_none_or(|c| !is_ident(c)) {
                lines.push(n + 1);
                break;
            }
            start = at + prefix.len();
        }
    }
    lines
}

#[test]
fn commands_make_no_api_calls() {
    // Only `src/kube/` talks to the API server: a command calls its typed operations
    // (`Connection::get`, `create`, `snapshot`, ...) and never holds an `Api` handle or names
    // the `kube` crate.
    let mut found = Vec::new();
    for f in rust_files("src/commands") {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        for line in path_starts(&code, "kube::") {
            found.push(format!("{}:{line}: the `kube` crate", rel(&f)));
        }
        for line in occurrences(&code, "Api") {
            found.push(format!("{}:{line}: `Api`", rel(&f)));
        }
    }
    assert!(
        found.is_empty(),
        "commands go through crate::kube's operations:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_serving_keys_stay_in_their_files() {
    // The /metrics TLS key is made or read, and handed to rustls, in `controller/tls.rs` only;
    // the conversion webhook's CA and serving keys in `controller/webhook_cert.rs` only (made
    // there, kept in its Secret, its Debug without them): no other file can log them or write
    // them out.
    let mut found = Vec::new();
    for f in rust_files("src") {
        if ["src/controller/tls.rs", "src/controller/webhook_cert.rs"].contains(&rel(&f).as_str()) {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        for word in ["rcgen", "PrivateKeyDer", "signing_key"] {
            for line in occurrences(&code, word) {
                found.push(format!("{}:{line}: `{word}`", rel(&f)));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn command_files_are_small() {
    // A command is its arguments and a `run`; what it computes lives in the library
    // (`view`, `manifests`, `kube`, `output`, `complete`).
    const MAX_LINES: usize = 250;
    let mut found = Vec::new();
    for f in rust_files("src/commands") {
        let lines = std::fs::read_to_string(&f).unwrap().lines().count();
        if lines > MAX_LINES {
            found.push(format!("{}: {lines} lines", rel(&f)));
        }
    }
    assert!(
        found.is_empty(),
        "command files are at most {MAX_LINES} lines:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checker_sees_through_comments_and_strings_only() {
    let code = code_only(
        "// HashMap in a comment\nlet s = \"HashMap\";\nlet r = r#\"HashMap\"#;\nuse std::collections::HashMap;\n",
    );
    assert_eq!(occurrences(&code, "HashMap"), vec![4]);
    assert_eq!(occurrences("let operand = 1;", "rand"), Vec::<usize>::new());
    assert_eq!(
        occurrences("use crate::kube::watch;", "crate::kube"),
        vec![1]
    );
    assert_eq!(
        occurrences("use crate::kubelet;", "crate::kube"),
        Vec::<usize>::new()
    );
    assert_eq!(
        crate_modules_used("use crate::{cli::{DryRun, GlobalArgs}, kube};\nx(crate::output::a);"),
        ["cli", "kube", "output"]
    );
    assert_eq!(
        path_starts(
            "use kube::Api;\nuse crate::kube::Connection;\nKueueApi::Served;\n(kube::x)",
            "kube::"
        ),
        vec![1, 4]
    );
}
