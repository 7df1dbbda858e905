//! The layout keeps its promises (docs/architecture.md): no two modules of
//! `src/` import each other, directly or through a loop, `unsafe` lives in
//! one file, and the walk is the one traversal of a book.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::common;

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's module path: `src/format/edax/read.rs` is `format::edax::read`,
/// `src/book/mod.rs` is `book`.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file, comments left out (doc links are not imports).
fn code(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The code of a file, or of every file of a folder (`src/config/`).
fn code_of(path: &Path) -> String {
    if !path.is_dir() {
        return code(path);
    }
    let mut files = Vec::new();
    rust_files(path, &mut files);
    files.sort();
    files.iter().map(|file| code(file)).collect::<Vec<_>>().join("\n")
}

/// The modules a path written in `module` names: `crate::a::b`,
/// `super::b` and `self::b` resolved to the longest module that exists.
fn target(module: &str, path: &str, modules: &BTreeSet<String>) -> Option<String> {
    let mut parts: Vec<&str> = path.split("::").collect();
    let mut base: Vec<&str> = match parts.first() {
        Some(&"crate") => Vec::new(),
        Some(&"super") => module.split("::").collect(),
        Some(&"self") => {
            parts.remove(0);
            module.split("::").filter(|p| !p.is_empty()).collect()
        }
        _ => return None,
    };
    while parts.first().is_some_and(|p| *p == "super") {
        base.pop();
        parts.remove(0);
    }
    if parts.first() == Some(&"crate") {
        parts.remove(0);
    }
    base.extend(parts);
    (1..=base.len()).rev().map(|k| base[..k].join("::")).find(|m| modules.contains(m))
}

/// Paths beginning with `crate::` or `super::` in some code, braces of a
/// `use` group expanded one level.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    let starts = |i: usize| code[i..].starts_with("crate::") || code[i..].starts_with("super::");
    let mut i = 0;
    while i < code.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let boundary =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':');
        if boundary && starts(i) {
            let end =
                code[i..].find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).map_or(code.len(), |e| i + e);
            let path = code[i..end].trim_end_matches(':').to_string();
            if code[end..].starts_with('{') {
                let close = code[end..].find('}').map_or(code.len(), |c| end + c);
                for item in code[end + 1..close].split(',') {
                    let item = item.trim().split([' ', '{']).next().unwrap_or("");
                    if !item.is_empty() && item != "self" {
                        paths.push(format!("{path}::{item}"));
                    }
                }
            }
            paths.push(path);
            i = end;
        } else {
            i += 1;
        }
    }
    paths
}

/// Paths in `module`'s code that begin with one of its own child modules,
/// as `self::child::…`: `use child::Item;`, `pub use child::Item;` and
/// `child::f()` are imports of the child (`mod child;` is not). A path
/// inside the group of a `crate::`/`super::` use is left to [`paths_in`].
fn child_paths(code: &str, module: &str, modules: &BTreeSet<String>) -> Vec<String> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    let mut paths = Vec::new();
    let mut group_ends = 0;
    let mut i = 0;
    while i < code.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &code[i..];
        let before = code[..i].chars().next_back();
        let boundary = !before.is_some_and(|c| is_name(c) || c == ':');
        if boundary && (rest.starts_with("crate::") || rest.starts_with("super::")) {
            // A group of the use is read by `paths_in`: skip it.
            let end = rest.find(|c: char| !(is_name(c) || c == ':')).map_or(code.len(), |e| i + e);
            if code[end..].starts_with('{') {
                group_ends = code[end..].find('}').map_or(code.len(), |c| end + c);
            }
            i = end;
            continue;
        }
        let end = rest.find(|c: char| !is_name(c)).map_or(code.len(), |e| i + e);
        if end == i {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let child = if module.is_empty() { code[i..end].to_string() } else { format!("{module}::{}", &code[i..end]) };
        if boundary && i > group_ends && code[end..].starts_with("::") && modules.contains(&child) {
            let close = code[end..].find(|c: char| !(is_name(c) || c == ':')).map_or(code.len(), |e| end + e);
            paths.push(format!("self::{}", code[i..close].trim_end_matches(':')));
            i = close;
        } else {
            i = end;
        }
    }
    paths
}

/// Where `src/` is, and every `.rs` file under it.
fn sources() -> (PathBuf, Vec<PathBuf>) {
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    (src, files)
}

/// No two modules import each other, through a loop of any length, a
/// child and its parent included: a parent imports its child when it names
/// it (`use child::Item`, `pub use child::Item`, `child::f()`; declaring
/// `mod child;` is not an import), so a child cannot import what its
/// parent's `mod.rs` defines while the parent names the child; what both
/// need goes in a sibling file. A file's `mod tests` is a module of its
/// own, as a `tests.rs` file is.
#[test]
fn no_two_modules_import_each_other_even_through_a_loop() {
    let edges = imports();
    if let Some(cycle) = a_loop(&edges) {
        panic!("modules import each other: {}", cycle.join(" -> "));
    }
    assert!(
        edges["fix"].contains("walk")
            && edges["book::resolve"].contains("book::resolved")
            && edges["games"].contains("games::pgn")
            && edges["games::pgn::tests"].contains("games"),
        "the imports were read"
    );
}

/// Every module of `src/` (both crates': their paths do not meet) and the
/// modules its code names, itself left out; a file's `mod tests` is a
/// module of its own (`…::tests`), as a `tests.rs` file is.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let (src, files) = sources();
    let files: BTreeMap<String, PathBuf> = files.into_iter().map(|f| (module_of(&src, &f), f)).collect();
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &files {
        let code = code(file);
        // `super` inside a file's `mod tests` is the file's own module.
        let (code, tests) = code.split_once("mod tests {").unwrap_or((&code, ""));
        let tests_module = format!("{module}::tests");
        let own = paths_in(code).into_iter().chain(child_paths(code, module, &modules)).map(|p| (module.as_str(), p));
        for (at, path) in own.chain(paths_in(tests).into_iter().map(|p| (tests_module.as_str(), p))) {
            if let Some(to) = target(at, &path, &modules) {
                if to != at && !to.is_empty() {
                    edges.entry(at.to_string()).or_default().insert(to);
                }
            }
        }
    }
    edges
}

/// A loop in `edges`, as the modules along it (the first again at the
/// end), if there is one: a depth-first search.
fn a_loop(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit<'a>(
        m: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(2) => return None,
            Some(1) => {
                let from = path.iter().position(|p| *p == m).unwrap();
                return Some(path[from..].iter().map(|s| s.to_string()).chain([m.to_string()]).collect());
            }
            _ => {}
        }
        state.insert(m, 1);
        path.push(m);
        for next in edges.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, state, path) {
                return Some(cycle);
            }
        }
        path.pop();
        state.insert(m, 2);
        None
    }
    let mut state = BTreeMap::new();
    edges.keys().find_map(|module| visit(module, edges, &mut state, &mut Vec::new()))
}

/// The folders' imports: each module's edges to other folders, a folder
/// being a top-level module (a folder of `src/`, or a file at its root,
/// `output.rs` with `output/`), test modules left out (a test may make its
/// book with `synth` where the book's code may not).
fn folder_imports(modules: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let folder = |m: &str| m.split("::").next().unwrap_or_default().to_string();
    let is_test = |m: &str| m.split("::").any(|part| part == "tests");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in modules.iter().filter(|(from, _)| !is_test(from)) {
        for to in tos.iter().filter(|to| folder(to) != folder(from)) {
            edges.entry(folder(from)).or_default().insert(folder(to));
        }
    }
    edges
}

/// Issue 63 point 4: no two folders import each other, directly or through
/// a loop (mining and the printers both read the rules, src/rules/; the
/// explorer and the inspect command both read inspect's JSON from the
/// library; the file tools know nothing of growth), so that a folder can
/// be read, and moved, without the ones that use it.
#[test]
fn no_two_folders_import_each_other_even_through_a_loop() {
    let edges = folder_imports(&imports());
    if let Some(cycle) = a_loop(&edges) {
        panic!("folders import each other: {}", cycle.join(" -> "));
    }
    let reads = |from: &str, to: &str| edges.get(from).is_some_and(|e| e.contains(to));
    assert!(
        reads("mine", "rules") && reads("output", "rules") && reads("mine", "output") && reads("commands", "serve"),
        "the imports were read"
    );
}

#[test]
fn a_loop_between_folders_is_found_and_a_test_module_is_not_one() {
    let modules: BTreeMap<String, BTreeSet<String>> = [
        ("mine::judging", &["output::print", "mine"][..]),
        ("output::print", &["rules::modes"]),
        ("output::print::tests", &["mine::judging"]),
    ]
    .into_iter()
    .map(|(from, tos)| (from.to_string(), tos.iter().map(|t| t.to_string()).collect()))
    .collect();
    let edges = folder_imports(&modules);
    assert_eq!(a_loop(&edges), None, "{edges:?}");
    let mut looped = modules.clone();
    looped.insert("rules::modes".to_string(), ["mine::judging".to_string()].into());
    let cycle = a_loop(&folder_imports(&looped)).expect("a loop");
    assert_eq!((cycle.first(), cycle.len()), (cycle.last(), 4), "{cycle:?}");
}

/// `unsafe` is refused by the compiler everywhere but in `src/os.rs`:
/// the package's lints deny it for every target, both crate roots too, and
/// only `os` is let off, in lib.rs and nowhere else.
#[test]
fn unsafe_code_is_denied_but_in_os() {
    let manifest = fs::read_to_string(common::repo().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("[lints.rust]\nunsafe_code = \"deny\""), "Cargo.toml denies unsafe code");
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    for file in files.iter().filter(|f| !f.ends_with("lib.rs")) {
        assert!(!fs::read_to_string(file).unwrap().contains("allow(unsafe_code)"), "{} lets unsafe in", file.display());
    }
    for root in ["lib.rs", "main.rs"] {
        let text = fs::read_to_string(src.join(root)).unwrap();
        assert!(text.contains("#![deny(unsafe_code)]"), "{root} denies unsafe code");
    }
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let allowed: Vec<&str> = lib.lines().filter(|l| l.contains("allow(unsafe_code)")).collect();
    assert_eq!(allowed, ["#[allow(unsafe_code)]"]);
    assert!(lib.contains("#[allow(unsafe_code)]\npub mod os;"), "only os is let off");
}

/// Data flows one way: the formats make records (src/record/) and know
/// nothing of the book that holds them, and the Othello rules
/// (board, symmetry, negamax) know nothing of files or formats.
#[test]
fn the_formats_do_not_reach_up_into_the_book_nor_the_rules_into_the_formats() {
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src.join("format"), &mut files);
    rust_files(&src.join("record"), &mut files);
    for file in &files {
        for path in paths_in(&code(file)) {
            assert!(!path.starts_with("crate::book"), "{} uses {path}", file.display());
        }
    }
    for rules in ["board.rs", "symmetry.rs", "negamax.rs"] {
        for path in paths_in(&code(&src.join(rules))) {
            let outside = ["crate::format", "crate::book", "crate::record"].iter().any(|p| path.starts_with(p));
            assert!(!outside, "{rules} uses {path}");
        }
    }
}

#[test]
fn the_engines_know_nothing_of_growth_nor_of_books() {
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src.join("engine"), &mut files);
    assert!(files.len() >= 7, "{} files under src/engine", files.len());
    let growth = ["crate::growth", "crate::merge", "crate::fix", "crate::walk", "crate::book", "crate::games"];
    for file in &files {
        let code = code(file);
        // Tests may read back what a protocol writes.
        let code = code.split("#[cfg(test)]").next().unwrap_or_default();
        for path in paths_in(code) {
            assert!(!growth.iter().any(|g| path.starts_with(g)), "{} uses {path}", file.display());
        }
    }
}

/// The names of the variants `Command::V` (a capital after `::`) that
/// some code matches or builds.
fn command_variants(code: &str) -> Vec<String> {
    code.match_indices("Command::")
        .map(|(at, _)| &code[at + "Command::".len()..])
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|rest| rest.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default().to_string())
        .collect()
}

/// A command describes itself once, in its own file of src/commands/: its
/// flags, the files it reads and writes, how it runs, its summary. The
/// binary's shared files name no command, and each file of src/commands/
/// but mod.rs is one command, a variant of the `Command` that mod.rs
/// declares (docs/architecture.md: how to add a command).
#[test]
fn each_command_is_one_file_and_the_shared_files_name_none() {
    let src = common::repo().join("src");
    for shared in ["cli", "app", "config", "summary.rs", "manual.rs"] {
        let code = code_of(&src.join(shared));
        assert_eq!(command_variants(&code), Vec::<String>::new(), "src/{shared} names commands");
        assert!(!code.contains("derive(Subcommand"), "src/{shared} declares commands");
        assert!(!code.contains("\"command\": \""), "src/{shared} writes a command's summary");
    }
    let commands = src.join("commands");
    let table = code(&commands.join("mod.rs"));
    let mut files = Vec::new();
    rust_files(&commands, &mut files);
    let files: Vec<PathBuf> = files.into_iter().filter(|f| !f.ends_with("mod.rs")).collect();
    assert!(files.len() >= 20, "{} command files", files.len());
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let code = code(file);
        let runs: Vec<&str> = code
            .match_indices("impl Run for ")
            .map(|(at, _)| code[at + "impl Run for ".len()..].split([' ', '<']).next().unwrap_or_default())
            .collect();
        assert_eq!(runs.len(), 1, "{} defines {} commands, not one: {runs:?}", file.display(), runs.len());
        // The one list (`commands!`) names each variant with its file.
        let variant = format!("{}({stem})", runs[0]);
        assert!(table.contains(&variant), "src/commands/mod.rs lists no {variant}");
        // That line declares the file's module too: no `mod` line of its own.
        assert!(!table.contains(&format!("mod {stem};")), "src/commands/mod.rs declares {stem} beside the list");
        assert!(code.contains("pub const EXAMPLES: &[(&str, &str)]"), "{} has no EXAMPLES", file.display());
    }
}

/// Issue 63 point 3: what every growth command takes (IN, OUT, `--fresh`
/// and the key groups of a growth run) is declared once, `GrowthFront` in
/// src/app/growth.rs; a growth command flattens it and declares only its
/// own arguments. So no command file declares the growth run's key group
/// (`ExtendKeys`) itself, and every growth command (extend, deviate,
/// enhance, play, fill, grow, deepen, learn, recalculate) takes the front.
#[test]
fn the_growth_commands_take_one_front_declared_once() {
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src.join("commands"), &mut files);
    for file in &files {
        assert!(!code(file).contains(": ExtendKeys"), "{} declares the growth keys itself", file.display());
    }
    for growth in ["extend", "deviate", "enhance", "play", "fill", "grow", "deepen", "learn", "recalculate"] {
        let file = src.join("commands").join(format!("{growth}.rs"));
        assert!(code(&file).contains("front: GrowthFront"), "{} does not take the growth front", file.display());
    }
    assert_eq!(code_of(&src.join("app")).matches("pub struct GrowthFront").count(), 1);
}

/// The string literals of `code` that are a command's name, whole
/// (`"mine"`, `starts_with("synth")`): a command named in a file not its own.
fn quoted_names(code: &str, names: &[String]) -> Vec<String> {
    names.iter().filter(|name| code.contains(&format!("\"{name}\""))).cloned().collect()
}

/// Issue 63 point 3: no file of the binary but the command's own names a
/// command as a string (`mut_subcommand("mine", …)`, `text == "inspect"`,
/// `command.starts_with("synth")`): what a command does differently is said
/// in its own file. (Prose that mentions a command, in a message or a
/// help text, is no such name.)
#[test]
fn no_shared_file_names_a_command_in_quotes() {
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src.join("commands"), &mut files);
    let names: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("mod.rs"))
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(names.len() >= 20 && names.contains(&"inspect".to_string()), "{names:?}");
    let shared = ["main.rs", "cli", "app", "config", "summary.rs", "manual.rs", "logging.rs", "progress.rs"];
    let mut found = Vec::new();
    for file in shared.iter().chain(&["heartbeat.rs", "commands/mod.rs"]) {
        for name in quoted_names(&code_of(&src.join(file)), &names) {
            found.push(format!("src/{file}: \"{name}\""));
        }
    }
    assert!(found.is_empty(), "commands named outside their files:\n{}", found.join("\n"));
}

#[test]
fn a_command_named_in_quotes_is_found_and_prose_is_not() {
    let names = ["mine".to_string(), "synth".to_string(), "inspect".to_string()];
    let code = "cli.mut_subcommand(\"mine\", f);\nif command.starts_with(\"synth\") {}\n\
                let e = \"no book given: `bookminer inspect BOOK`\";";
    assert_eq!(quoted_names(code, &names), ["mine", "synth"]);
}

#[test]
fn a_command_named_in_a_shared_file_is_found() {
    let code = "match c {\n    Some(Command::Mine { args, .. }) => 1,\n    Command::Fix(fix) => 2,\n}\n\
                let c = clap::Command::new(\"x\"); Command::into_run(c);";
    assert_eq!(command_variants(code), ["Mine", "Fix"]);
}

/// The growing book and `merge` are grown or searched by the policies of
/// `growth` (src/growth/policies/, over its session) and know nothing of
/// them: of growth they read only the growing book, a growth run's error
/// and its paths; the engines know nothing of growth at all. The policies
/// depend on the growing book and the engines, never the other way.
#[test]
fn the_growing_book_and_merge_know_nothing_of_the_growth_policies() {
    let src = common::repo().join("src");
    let known = ["crate::growth::growing", "crate::growth::error", "crate::growth::paths"];
    for (room, known) in [("growth/growing", &known[..]), ("merge", &known[..]), ("engine", &[][..])] {
        let mut files = Vec::new();
        rust_files(&src.join(room), &mut files);
        assert!(files.len() >= 5, "{} files under src/{room}", files.len());
        for file in &files {
            for path in paths_in(&code(file)) {
                let allowed = known.iter().any(|k| path == *k || path.starts_with(&format!("{k}::")));
                assert!(!path.starts_with("crate::growth") || allowed, "{} uses {path}", file.display());
            }
        }
    }
}

/// Issue 63 point 5: a growth policy is one file. Every file of
/// src/growth/policies/ (but its mod.rs, which declares them) is a policy:
/// a value implementing `growth::Policy`, which `growth::run` runs. No
/// policy imports another, and no file of `src/` names a policy's module
/// but its own, the policies' mod.rs and the commands' (src/commands/), so
/// a new policy is its file, its line in mod.rs and its command.
#[test]
fn a_growth_policy_is_one_file() {
    let src = common::repo().join("src");
    let folder = src.join("growth/policies");
    let declared = code(&folder.join("mod.rs"));
    let mut names = Vec::new();
    for entry in fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name != "mod" {
            assert!(path.extension().is_some_and(|e| e == "rs"), "{} is not a policy's file", path.display());
            assert!(declared.contains(&format!("pub mod {name};")), "policies/mod.rs does not declare {name}");
            assert!(code(&path).contains("impl crate::growth::policy::Policy for "), "{name}.rs is no policy");
            names.push(name);
        }
    }
    names.sort();
    assert!(names.len() >= 11 && names.contains(&"deepen".to_string()), "policies: {names:?}");
    let (_, files) = sources();
    for file in &files {
        let (in_policies, in_commands) =
            (file.parent() == Some(folder.as_path()), file.starts_with(src.join("commands")));
        let code = code(file);
        for name in &names {
            // `super::` names a sibling policy only inside the policies' folder.
            let named = code.contains(&format!("policies::{name}"))
                || (in_policies && code.contains(&format!("super::{name}::")));
            let its_own = file.file_stem().is_some_and(|s| s == name.as_str());
            let allowed = in_commands || (in_policies && its_own);
            assert!(!named || allowed, "{} names the policy {name}", file.display());
        }
    }
}

/// The functions of `code` that call themselves (by name, as `name(`,
/// `self.name(` or `Self::name(` in their own body), test modules left
/// out: each a depth-first traversal of its own, or some other recursion.
fn recursive_functions(code: &str) -> Vec<String> {
    let code = code.split("#[cfg(test)]").next().unwrap_or_default();
    let mut found = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        let rest = &code[at + 3..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let Some(open) = rest.find('{') else { continue };
        // A declaration without a body (in a trait) ends before its brace.
        if rest[..open].contains(';') || name.is_empty() {
            continue;
        }
        let mut depth = 0usize;
        let mut end = open;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => continue,
            }
            if depth == 0 {
                end = open + i;
                break;
            }
        }
        let body = &rest[open..end];
        // A function of an impl (indented) calls itself as `self.name(` or
        // `Self::name(` (a bare `name(` in it is a free function of that
        // name); a free function as `name(`; neither as `other_name(`,
        // `x.name(` or `Other::name(`.
        let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        let method = code[line_start..at].starts_with(char::is_whitespace);
        let call = format!("{name}(");
        let calls_itself = body.match_indices(&call).any(|(i, _)| {
            let before = &body[..i];
            let bare = before.chars().last().is_none_or(|c| !(c.is_alphanumeric() || "_.:".contains(c)));
            (bare && !method) || before.ends_with("self.") || before.ends_with("Self::")
        });
        if calls_itself {
            found.push(name);
        }
    }
    found
}

/// One walk (docs/architecture.md): every depth-first traversal of a book,
/// a book file or one as it grows, is the walk of src/walk/, which keeps
/// its own stack; no other function of src/ calls itself but `synth`'s
/// alpha-beta search and `fill`'s look at the sequences of D plies (6 at
/// most) from a position, which search the game, not a book, and the marking
/// passes of `deviate` (Edax's `position_deviate`) and `enhance` (Edax's
/// `position_enhance`), whose rules no window says (a deviation for one
/// side only, from values raised between two passes; a link followed by
/// its bounds against its parent's) and whose depth is the plies below the
/// start, 61 at most; and the two walks of `learn` (Egaroucid's
/// `get_book_deviate_todo` and `get_book_recalculate_leaf_todo`), whose
/// `seen` flags, todo set and error sums are Egaroucid's and no window's,
/// at most 61 plies deep.
#[test]
fn the_only_traversal_of_a_book_is_the_walk() {
    let (src, files) = sources();
    let mut recursive = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("tests.rs")) {
        for name in recursive_functions(&code(file)) {
            recursive.push(format!("{}: {name}", module_of(&src, file)));
        }
    }
    recursive.sort();
    assert_eq!(
        recursive,
        [
            "growth::policies::deviate: visit",
            "growth::policies::enhance: visit",
            "growth::policies::fill: reach",
            "growth::policies::learn: visit",
            "growth::policies::learn: visit",
            "synth::play: search"
        ],
        "functions that call themselves"
    );
}

/// The check above finds a function that calls itself, however it is
/// called, and not one that calls another of a longer name.
#[test]
fn a_function_that_calls_itself_is_found() {
    let code = "impl Walk {\n    fn visit(&mut self, id: u32) {\n        for c in 0..id { self.visit(c); }\n    }\n\
                \x20   fn open(p: u32) -> Walk { Self::open(p) }\n\
                \x20   fn build(p: u32) -> Walk { build(p) }\n}\n\
                fn depth(n: u32) -> u32 { if n == 0 { 0 } else { 1 + depth(n - 1) } }\n\
                fn plain(n: u32) -> u32 { not_plain(n) + x.plain(n) + Other::plain(n) }\n\
                fn made() -> Made { Self::made_with(Vec::new()) }\n\
                fn declared(&self);\n";
    assert_eq!(recursive_functions(code), ["visit", "open", "depth"]);
}

/// Issue 47 item 5: what `cargo install` builds (the release profile)
/// carries no debug information, which made the binary 30 MB; profilers
/// get it from the `profiling` profile, the release build with line tables;
/// and the README installs with the dependencies Cargo.lock names.
#[test]
fn the_installed_build_carries_no_debug_information_and_installs_locked() {
    let manifest: toml::Value =
        toml::from_str(&fs::read_to_string(common::repo().join("Cargo.toml")).unwrap()).unwrap();
    let profiles = &manifest["profile"];
    let release = profiles["release"].as_table().unwrap();
    let no_debug = |d: &toml::Value| {
        matches!(d, toml::Value::Boolean(false) | toml::Value::Integer(0)) || d.as_str().is_some_and(|s| s == "none")
    };
    assert!(release.get("debug").is_none_or(no_debug), "release: {release:?}");
    assert!(release.get("strip").is_none_or(|s| s.as_bool() != Some(false)), "release: {release:?}");
    let profiling = profiles["profiling"].as_table().unwrap();
    assert_eq!(profiling["inherits"].as_str(), Some("release"));
    assert!(!no_debug(&profiling["debug"]), "profiling keeps line tables: {profiling:?}");
    let readme = fs::read_to_string(common::repo().join("README.md")).unwrap();
    assert!(readme.contains("\ncargo install --locked --path ."), "the README installs locked");
}

/// The lines of `code`'s non-test part (up to its `#[cfg(test)]` module)
/// that spell the score −127 as a literal.
fn lines_with_minus_127(code: &str) -> Vec<String> {
    let code = code.split("#[cfg(test)]").next().unwrap_or_default();
    let literal = |line: &str| {
        line.match_indices("-127").any(|(at, _)| {
            let after = line[at + 4..].chars().next();
            let before = line[..at].chars().next_back();
            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    code.lines().filter(|l| literal(l)).map(|l| l.trim().to_string()).collect()
}

/// Issue 45 point 4 and issue 63 point 6: only the book formats, which
/// read and write the bytes, spell −127 outside tests, and only they name a
/// "no leaf" sentinel (`NO_LEAF`, `NO_LEAF_MOVE`): everywhere else a leaf
/// is an `Option<Leaf>`, none being `None`.
#[test]
fn no_score_of_minus_127_nor_a_no_leaf_sentinel_is_spelled_out_beside_the_formats() {
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(src.join("format")) && !f.ends_with("tests.rs")) {
        let code = code(file);
        for line in lines_with_minus_127(&code).into_iter().chain(lines_naming_no_leaf(&code)) {
            found.push(format!("{}: {line}", file.display()));
        }
    }
    assert!(found.is_empty(), "−127 or a no-leaf sentinel spelled out:\n{}", found.join("\n"));
}

/// The lines of `code` (tests included) that name a no-leaf sentinel.
fn lines_naming_no_leaf(code: &str) -> Vec<String> {
    let names = |line: &str| line.contains("NO_LEAF");
    code.lines().filter(|l| names(l)).map(|l| l.trim().to_string()).collect()
}

#[test]
fn a_literal_minus_127_is_found_and_a_test_module_is_not_searched() {
    let code = "let a = x > -127;\nlet b = -1270;\nlet c = y-127;\nlet d = NO_LEAF;\n\
                #[cfg(test)]\nmod tests { const NO_LEAF: i8 = -127; }\n";
    assert_eq!(lines_with_minus_127(code), ["let a = x > -127;"]);
    assert_eq!(lines_naming_no_leaf(code), ["let d = NO_LEAF;", "mod tests { const NO_LEAF: i8 = -127; }"]);
}

/// The lines of `code`'s non-test part (up to its `#[cfg(test)]` module)
/// that name `i8` or `i16` as a type, a cast or a path (`i8::MAX`), not
/// as part of a longer name (`to_i8`, `i16x8`).
fn lines_naming_a_byte_or_short(code: &str) -> Vec<String> {
    let code = code.split("#[cfg(test)]").next().unwrap_or_default();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let names = |line: &str| {
        ["i8", "i16"].iter().any(|name| {
            line.match_indices(name).any(|(at, _)| {
                !line[..at].chars().next_back().is_some_and(word)
                    && !line[at + name.len()..].chars().next().is_some_and(word)
            })
        })
    };
    code.lines().filter(|l| names(l)).map(|l| l.trim().to_string()).collect()
}

/// Issue 63 point 6: a score is a `Score` (src/score.rs) in the negamax and
/// in growth, values, bounds, link scores and leaves alike, never Edax's
/// `short` or `signed char` as a bare `i16` or `i8`: C's wrapping is
/// `Score`'s named methods, and the bytes a format stores are converted
/// where a record is read or written. The one file of growth that holds a
/// byte is `egbook.rs`, an `.egbk3` record field by field: its level bytes
/// (−1, undefined, which no `Level` is) and the bytes it reads.
#[test]
fn the_negamax_and_growth_compute_scores_as_score_not_bare_bytes_or_shorts() {
    let src = common::repo().join("src");
    let mut files = vec![src.join("negamax.rs")];
    rust_files(&src.join("growth"), &mut files);
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("tests.rs")) {
        let record_bytes = file.ends_with("growth/egbook.rs");
        for line in lines_naming_a_byte_or_short(&code(file)) {
            if !(record_bytes && (line.to_lowercase().contains("level") || line.contains("bytes["))) {
                found.push(format!("{}: {line}", file.display()));
            }
        }
    }
    assert!(found.is_empty(), "a bare i8 or i16 where a Score belongs:\n{}", found.join("\n"));
    assert!(files.len() > 20, "the growth folder was read: {files:?}");
}

#[test]
fn a_bare_byte_or_short_is_found_and_a_longer_name_and_a_test_module_are_not() {
    let code = "let a: i8 = 0;\nlet b = x as i16;\nlet c = i8::MAX;\nlet d = l.to_i8();\n\
                let e: Vec<i16x8>;\nfn f(v: (i16, u8)) {}\n#[cfg(test)]\nmod tests { const T: i8 = 1; }\n";
    assert_eq!(
        lines_naming_a_byte_or_short(code),
        ["let a: i8 = 0;", "let b = x as i16;", "let c = i8::MAX;", "fn f(v: (i16, u8)) {}"]
    );
}

/// The lines of `code` that pass a run's stop as a bare flag or a
/// closure: a reference to an `AtomicBool` (`&AtomicBool`, `&'a
/// AtomicBool`) or a `dyn Fn() -> bool`.
fn stops_not_of_the_one_type(code: &str) -> Vec<String> {
    let bare_flag = |line: &str| {
        line.match_indices("AtomicBool").any(|(at, _)| {
            let before = line[..at].trim_end();
            let before = before.strip_suffix("mut").map_or(before, str::trim_end);
            // A lifetime between the `&` and the type: `&'a AtomicBool`.
            let before = match before.rfind('\'') {
                Some(tick) if before[tick + 1..].chars().all(|c| c.is_alphanumeric() || c == '_') => &before[..tick],
                _ => before,
            };
            before.trim_end().ends_with('&')
        })
    };
    let closure = |line: &str| line.contains("dyn Fn() -> bool");
    code.lines().filter(|l| bare_flag(l) || closure(l)).map(|l| l.trim().to_string()).collect()
}

/// Issue 45 point 4: a run's stop has one type, `run::Cancel`; no other
/// module of src/, its tests included, takes the flag behind it or a
/// closure asking it.
#[test]
fn a_stop_is_passed_as_the_one_cancel_type() {
    let (src, files) = sources();
    let mut found = Vec::new();
    for file in files.iter().filter(|f| **f != src.join("run.rs")) {
        for line in stops_not_of_the_one_type(&code(file)) {
            found.push(format!("{}: {line}", file.display()));
        }
    }
    assert!(found.is_empty(), "a stop not passed as run::Cancel:\n{}", found.join("\n"));
}

#[test]
fn a_flag_or_a_closure_passed_as_a_stop_is_found() {
    let code = "fn a(cancel: &AtomicBool) {}\nstruct B<'r> { cancel: &'r AtomicBool }\n\
                fn c(stop: &dyn Fn() -> bool) {}\nfn d(stop: &(dyn Fn() -> bool + Sync)) {}\n\
                f(&AtomicBool::new(false));\nlet e: &'a mut AtomicBool = x;\n\
                static F: AtomicBool = AtomicBool::new(false);\nlet g: Arc<AtomicBool> = flag;\n\
                fn h(cancel: Cancel<'_>) {}\nlet i = AtomicBool::new(true);\n";
    assert_eq!(
        stops_not_of_the_one_type(code),
        [
            "fn a(cancel: &AtomicBool) {}",
            "struct B<'r> { cancel: &'r AtomicBool }",
            "fn c(stop: &dyn Fn() -> bool) {}",
            "fn d(stop: &(dyn Fn() -> bool + Sync)) {}",
            "f(&AtomicBool::new(false));",
            "let e: &'a mut AtomicBool = x;",
        ]
    );
}

// Issue 63: what each kind of change touches (docs/architecture.md, "What
// each kind of change touches"), each count held below.

/// The variants of `enum name` in `code` (comments left out): the names
/// that start its lines one level in.
fn variants(code: &str, name: &str) -> Vec<String> {
    let start = code.find(&format!("enum {name} {{")).unwrap_or_else(|| panic!("no enum {name}"));
    let body = &code[start..];
    let body = &body[..body.find("\n}").expect("the enum's end")];
    body.lines()
        .filter(|l| l.starts_with("    ") && !l.starts_with("     "))
        .map(|l| l.trim().split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default().to_string())
        .filter(|v| v.starts_with(|c: char| c.is_ascii_uppercase()))
        .collect()
}

/// The folders directly under `dir`, by name, sorted.
fn folders_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A file's code without its test module (`#[cfg(test)]` items before it,
/// a test's helper method, are kept).
fn non_test(file: &Path) -> String {
    code(file).split("#[cfg(test)]\nmod ").next().unwrap_or_default().to_string()
}

/// The number docs/architecture.md gives after `what` in its table of what
/// each kind of change touches.
fn documented(what: &str) -> usize {
    let doc = fs::read_to_string(common::repo().join("docs/architecture.md")).unwrap();
    let at = doc.find(what).unwrap_or_else(|| panic!("docs/architecture.md does not say \"{what}\""));
    let number: String = doc[at + what.len()..].trim_start().chars().take_while(char::is_ascii_digit).collect();
    number.parse().unwrap_or_else(|_| panic!("no number after \"{what}\" in docs/architecture.md"))
}

#[test]
fn an_enum_s_variants_are_found_and_a_field_is_not() {
    let code = "pub enum Layout {\n    Edax {\n        header: Header,\n    },\n    Egaroucid(u8),\n    Third,\n}\n\
                fn f() {}\n";
    assert_eq!(variants(code, "Layout"), ["Edax", "Egaroucid", "Third"]);
}

/// A config key is one definition, in one file: a `Key` static in its
/// theme's file of src/config/keys/, named in one `group!` of that file and
/// landing in that file's `values!` (its default there, beside it); no
/// other source file names it (the keys are what the groups name, no list
/// by hand), and `Config` (src/config/values.rs) is the themes' values, a
/// field a theme file, nothing else; its row in docs/usage.md's table is
/// made from the definition (a test of the binary compares them).
#[test]
fn each_key_is_one_definition_in_its_theme_file() {
    let config = common::repo().join("src/config");
    let usage = fs::read_to_string(common::repo().join("docs/usage.md")).unwrap();
    let (src, sources) = sources();
    let mut files = Vec::new();
    rust_files(&config.join("keys"), &mut files);
    files.sort();
    let themes_files: Vec<&PathBuf> = files.iter().filter(|f| !f.ends_with("mod.rs")).collect();
    let mut themes = Vec::new();
    let mut definitions = Vec::new();
    for &file in &themes_files {
        let theme = file.file_stem().unwrap().to_string_lossy().into_owned();
        let code = non_test(file);
        let values = values_declared(&code).unwrap_or_else(|| panic!("keys/{theme}.rs declares no values!"));
        let groups: Vec<&str> = code.split("group!(").skip(1).map(|g| &g[..g.find(");").unwrap()]).collect();
        for (at, _) in code.match_indices(": Key<") {
            let ident = code[..at].rsplit(' ').next().unwrap().to_string();
            let name = code[at..].split("name: \"").nth(1).and_then(|n| n.split('"').next()).unwrap().to_string();
            let lands_in = code[at..].split("> = Key").next().unwrap().rsplit(", ").next().unwrap();
            assert_eq!(lands_in, values, "{theme}::{ident} lands outside its file's values");
            let in_groups: Vec<&&str> = groups
                .iter()
                .filter(|g| g.split([':', ',', ';', ' ', '\n']).any(|word| word.trim() == ident))
                .collect();
            assert_eq!(in_groups.len(), 1, "{theme}::{ident} is in {} groups, not one", in_groups.len());
            assert!(in_groups[0].contains(&format!(" of {values}:")), "{theme}::{ident}'s group lands elsewhere");
            // The other theme files may say a word such as ERROR; the rest of
            // src/config/ (mod.rs' re-exports, the readers) may not.
            let shared = |other: &Path| other.starts_with(&config) && !themes_files.iter().any(|f| *f == other);
            let elsewhere: Vec<String> = sources
                .iter()
                .filter(|other| *other != file)
                .filter(|other| {
                    let code = non_test(other);
                    names_a_key(&code, &theme, &ident) || (shared(other) && has_word(&code, &ident))
                })
                .map(|other| other.strip_prefix(&src).unwrap().display().to_string())
                .collect();
            assert_eq!(1 + elsewhere.len(), documented("\na config key"), "{theme}::{ident} is named in {elsewhere:?}");
            assert!(usage.contains(&format!("\n| `{name}` |")), "docs/usage.md has no row of `{name}`");
            definitions.push(name);
        }
        themes.push(format!("{theme}: {values}"));
    }
    let values = code(&config.join("values.rs"));
    let parts =
        values.split("\nconfig!(").nth(1).and_then(|c| c.split(");").next()).expect("config!(...) in values.rs");
    let parts: Vec<String> = parts.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
    assert_eq!(parts, themes, "Config is the themes' values, a field a theme file, in their order");
    assert!(!values.contains("impl Default"), "Config's defaults are its themes', beside their keys");
    let rows = usage.lines().filter(|l| l.starts_with("| `")).count();
    assert!(definitions.len() >= 32 && rows >= definitions.len(), "{} keys, {rows} rows", definitions.len());
}

/// The values a theme file declares: the name `values!(` gives, after its doc.
fn values_declared(code: &str) -> Option<&str> {
    let declared = code.split("values!(").nth(1)?;
    let line = declared.lines().map(str::trim).find(|l| l.ends_with(" {") && !l.starts_with("//"))?;
    line.strip_suffix(" {")
}

/// Whether `code` names the key `ident` of the theme `theme` by path
/// (`books::BOOK`, `keys::BOOK`, a list of them by hand).
fn names_a_key(code: &str, theme: &str, ident: &str) -> bool {
    [format!("{theme}::{ident}"), format!("keys::{ident}")].iter().any(|path| {
        code.match_indices(path.as_str()).any(|(at, _)| {
            let after = code[at + path.len()..].chars().next();
            !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// Whether `code` has `word` alone, not as a part of a longer name
/// (`write::{Write, FORCE}` has FORCE; FORCED does not).
fn has_word(code: &str, word: &str) -> bool {
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).any(|(at, _)| {
        !code[..at].chars().next_back().is_some_and(is_name)
            && !code[at + word.len()..].chars().next().is_some_and(is_name)
    })
}

#[test]
fn a_key_named_by_path_is_found_and_a_longer_name_is_not() {
    assert!(names_a_key("pub static ALL: &[&dyn AnyKey] = &[\n    &books::BOOK,\n];", "books", "BOOK"));
    assert!(names_a_key("use super::keys::MODE;", "mine", "MODE"));
    assert!(!names_a_key("&books::BOOK_SIZE", "books", "BOOK"));
    assert!(!names_a_key("tracing::Level::ERROR", "walk", "ERROR"));
    assert!(has_word("pub use write::{Write, WriteKeys, FORCE};", "FORCE"));
    assert!(!has_word("FORCED, REFORCE", "FORCE"));
    let code = "values!(\n    /// Doc {\n    Write {\n        force: bool = false,\n    }\n);";
    assert_eq!(values_declared(code), Some("Write"));
}

/// An engine protocol is one folder of src/engine/ implementing `Console`
/// and one variant of `Protocol` (src/engine/protocol.rs, which alone
/// names the folders); outside it and their folders, only tests name a
/// protocol's variant, but the journal's reading of a line that names
/// none (older journals: Edax's), which a new protocol leaves as it is.
#[test]
fn each_protocol_is_one_folder_and_one_variant() {
    let engine = common::repo().join("src/engine");
    let folders = folders_in(&engine);
    let protocol = code(&engine.join("protocol.rs"));
    let variants = variants(&protocol, "Protocol");
    assert_eq!(folders.len(), variants.len(), "src/engine/'s folders {folders:?}, Protocol's variants {variants:?}");
    for folder in &folders {
        assert!(code_of(&engine.join(folder)).contains("impl Console for "), "src/engine/{folder} has no Console");
        assert!(protocol.contains(&format!("super::{folder}::")), "protocol.rs does not name {folder}");
    }
    let (src, files) = sources();
    let mut named = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("tests.rs")) {
        let place = file.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        if place == "engine/protocol.rs" || folders.iter().any(|f| place.starts_with(&format!("engine/{f}/"))) {
            continue;
        }
        let code = non_test(file);
        for variant in variants.iter().filter(|v| code.contains(&format!("Protocol::{v}"))) {
            named.push(format!("src/{place}: Protocol::{variant}"));
        }
        for folder in &folders {
            let by_path = code.contains(&format!("engine::{folder}::"));
            let from_a_sibling = place.starts_with("engine/") && code.contains(&format!("super::{folder}::"));
            assert!(!by_path && !from_a_sibling, "src/{place} names the protocol {folder}");
        }
    }
    assert_eq!(named, ["src/engine/journal.rs: Protocol::EdaxConsole"], "protocols named outside protocol.rs");
}

/// A game format is one reader file of src/games/ (a type implementing
/// `Reader`), one variant of `GameFormat` (src/games/format.rs, with its
/// extension) and its arm in `GameFile`'s match (src/games/mod.rs); no
/// file outside src/games/ names a variant.
#[test]
fn each_game_format_is_one_reader_file_and_one_variant() {
    let games = common::repo().join("src/games");
    let mut files = Vec::new();
    rust_files(&games, &mut files);
    let readers: Vec<String> = files
        .iter()
        .filter(|f| non_test(f).contains("> Reader for "))
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let variants = variants(&code(&games.join("format.rs")), "GameFormat");
    assert_eq!(readers.len(), variants.len(), "readers {readers:?}, GameFormat's variants {variants:?}");
    // Each variant's one arm in GameFile's match makes the reader of one
    // file, each file's for one variant.
    let opened = non_test(&games.join("mod.rs"));
    let mut made: Vec<String> = variants
        .iter()
        .map(|variant| {
            let arm = format!("GameFormat::{variant} => Box::new(");
            assert_eq!(opened.matches(&arm).count(), 1, "GameFile's arm of {variant}");
            let at = opened.find(&arm).unwrap() + arm.len();
            opened[at..].split("::").next().unwrap().to_string()
        })
        .collect();
    made.sort();
    let mut readers = readers;
    readers.sort();
    assert_eq!(made, readers, "each variant makes the reader of one file");
    let (_, files) = sources();
    for file in files.iter().filter(|f| !f.starts_with(&games) && !f.ends_with("tests.rs")) {
        let code = non_test(file);
        for variant in &variants {
            assert!(
                !code.contains(&format!("GameFormat::{variant}")),
                "{} names GameFormat::{variant}",
                file.display()
            );
        }
    }
}

/// A book format's family (Edax's layout or Egaroucid's) is one folder of
/// src/format/ that reads and encodes it (`read.rs`, `encode.rs`), one
/// variant of `Family` and one `Layout` (src/book/file.rs). The formats'
/// differences reach further, where a command's rules differ by format:
/// the files outside src/format/ that name a format (its folder's module
/// or a variant of `Format`, `OutFormat`, `Family` or `Layout`) are as many
/// as docs/architecture.md says, so that the count stays told.
#[test]
fn each_book_format_is_one_folder_and_the_files_that_name_a_format_are_counted() {
    let src = common::repo().join("src");
    let format = src.join("format");
    let folders = folders_in(&format);
    let families = variants(&code(&format.join("mod.rs")), "Family");
    let layouts = variants(&code(&src.join("book/file.rs")), "Layout");
    assert_eq!(folders.len(), families.len(), "src/format/'s folders {folders:?}, Family's variants {families:?}");
    assert_eq!(layouts, families, "a Layout a family");
    for folder in &folders {
        for file in ["read.rs", "encode.rs"] {
            assert!(format.join(folder).join(file).is_file(), "src/format/{folder}/{file}");
        }
    }
    let mut naming = Vec::new();
    let (_, files) = sources();
    for file in files.iter().filter(|f| !f.starts_with(&format) && !f.ends_with("tests.rs")) {
        if names_a_book_format(&non_test(file), &folders) {
            naming.push(file.strip_prefix(&src).unwrap().display().to_string());
        }
    }
    assert_eq!(
        naming.len(),
        documented("outside src/format/:"),
        "files outside src/format/ that name a book format (docs/architecture.md counts them):\n{}",
        naming.join("\n")
    );
}

/// Whether `code` names a book format: a format folder's module
/// (`format::edax`, or `edax` in a `format::{...}` group) or a variant of
/// `Format`, `OutFormat`, `Family` or `Layout`.
fn names_a_book_format(code: &str, folders: &[String]) -> bool {
    let variant = ["Format::", "OutFormat::", "Family::", "Layout::"].iter().any(|prefix| {
        code.match_indices(prefix).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            let after = code[at + prefix.len()..].chars().next();
            // `GameFormat::` and `RecordFormat::` are other types.
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.is_some_and(|c| c.is_ascii_uppercase())
        })
    });
    let module = folders.iter().any(|folder| {
        code.contains(&format!("format::{folder}"))
            || code.split("format::{").skip(1).any(|group| {
                group[..group.find('}').unwrap_or(group.len())].split([',', ' ', '\n']).any(|w| w.trim() == folder)
            })
    });
    variant || module
}

#[test]
fn a_book_format_named_is_found_and_another_type_s_variant_is_not() {
    let folders = ["edax".to_string(), "egaroucid".to_string()];
    assert!(names_a_book_format("use crate::format::edax::{self, Header};", &folders));
    assert!(names_a_book_format("use crate::format::{egaroucid, Header};", &folders));
    assert!(names_a_book_format("match f { Family::Edax => 1, _ => 2 }", &folders));
    assert!(!names_a_book_format("GameFormat::Pgn; RecordFormat::Kifu; Format::of(x)", &folders));
    assert!(!names_a_book_format("use crate::format::{Header, Lookup};", &folders));
}
