//! The documentation stays true to the program: every `mdview` line in the `sh` code blocks of
//! `docs/cli.md` and `README.md` runs, as written, in its own copy of the built-in demo (plus
//! `arm.mdr`, a Quake II `tris.md2`, a Quake 3 player in `player/` and, where the corpus is
//! present, `Rabbit.m2`), and the test fails when one exits with an error or panics. Lines that
//! draw (`render`) skip without a wgpu adapter and lines that open the window skip without
//! `xvfb-run`, unless `CI` is set; lines that name a corpus file skip without the corpus. Every
//! option `--help` lists must be in cli.md.

mod common;
mod render_common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

/// The documents whose commands are run, relative to the repository.
const DOCUMENTS: [&str; 2] = ["docs/cli.md", "README.md"];
/// Corpus files the docs name, copied beside the demo when present.
const CORPUS_FILES: [&str; 3] = ["m2/rabbit/Rabbit.m2", "m2/rabbit/Rabbit00.skin", "m2/rabbit/RabbitSkin.blp"];

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One command quoted in a document.
#[derive(Debug)]
struct Quoted {
    /// `docs/cli.md:42`, for messages.
    place: String,
    words: Vec<String>,
    /// `> FILE`: where stdout goes.
    stdout_to: Option<String>,
}

/// The `mdview` lines of `markdown`'s `sh` code blocks, split into words as a shell would
/// (quotes and a trailing `# comment` understood; `> FILE` taken as a redirection).
fn quoted_commands(markdown: &str, document: &str) -> Vec<Quoted> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut in_other = false;
    for (number, line) in markdown.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(info) = trimmed.strip_prefix("```") {
            if in_sh || in_other {
                (in_sh, in_other) = (false, false);
            } else if matches!(info.trim(), "sh" | "bash" | "shell") {
                in_sh = true;
            } else {
                in_other = true;
            }
            continue;
        }
        if !in_sh || !(trimmed == "mdview" || trimmed.starts_with("mdview ")) {
            continue;
        }
        let mut words = shell_words(trimmed);
        let mut stdout_to = None;
        if let Some(at) = words.iter().position(|w| w == ">") {
            stdout_to = words.get(at + 1).cloned();
            words.truncate(at);
        }
        words.remove(0);
        commands.push(Quoted { place: format!("{document}:{}", number + 1), words, stdout_to });
    }
    commands
}

/// Words of one shell line: whitespace separates, single and double quotes group, and a `#` at
/// the start of a word begins a comment.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, '#') if word.is_none() => break,
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// A Quake II model like a player's `tris.md2`: a quad with a two-frame `stand` clip and a
/// six-frame `run` clip that moves it, and the skin it names.
fn write_quake2(dir: &Path) {
    use mdview::writers::quake2::FrameSpec;
    let mut spec = common::quake2_quad(0, &["models/x/skin.pcx"]);
    let rest = spec.frames.remove(0);
    let frame = |name: String, lift: u8| FrameSpec {
        name,
        vertices: rest.vertices.iter().map(|v| [v[0], v[1].saturating_add(lift), v[2], v[3]]).collect(),
        ..rest.clone()
    };
    spec.frames = (1..=2u8).map(|i| frame(format!("stand{i:02}"), 0)).collect();
    spec.frames.extend((1..=6u8).map(|i| frame(format!("run{i}"), 10 * i)));
    common::write(dir, "tris.md2", &spec.to_bytes());
    common::write(dir, "skin.pcx", &common::flat_pcx([180, 120, 60]));
}

/// Copies the tree `from` (the demo: models, the archive, the park save and its install; the
/// player folder) into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("demo folder") {
        let path = entry.expect("demo entry").path();
        let target = to.join(path.file_name().expect("name"));
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy demo file");
        }
    }
}

/// A Quake 3 player folder: `lower`, `upper` and `head` (the writer's sample, four frames
/// each, its tag renamed to the ones a player hangs on) and an `animation.cfg` of the game's
/// 25 lines over those frames.
fn write_player(dir: &Path) {
    std::fs::create_dir_all(dir).expect("player folder");
    let with_tags = |names: &[&str]| {
        let mut file = mdview::writers::md3::sample(4);
        file.tag_names = names.iter().map(|n| n.to_string()).collect();
        for frame in &mut file.tags {
            let tag = frame[0].clone();
            *frame = names.iter().map(|n| mdview::formats::md3::Tag { name: n.to_string(), ..tag.clone() }).collect();
        }
        mdview::writers::md3::write(&file)
    };
    common::write(dir, "lower.md3", &with_tags(&["tag_torso"]));
    common::write(dir, "upper.md3", &with_tags(&["tag_head", "tag_weapon"]));
    common::write(dir, "head.md3", &with_tags(&["tag_head"]));
    let lines: String = (0..25).map(|i| if i < 6 { "0 1 0 10\n" } else { "0 4 4 10\n" }).collect();
    common::write(dir, "animation.cfg", lines.as_bytes());
}

/// The files the commands run on, in `template/` of the returned folder: the demo park, the MDR
/// sample, a Quake II model and, where the corpus is, its files the docs name. Returns the
/// folder and whether the corpus files are there.
fn prepare_folder() -> (PathBuf, bool) {
    let root = render_common::out_dir("docs-cli", "commands");
    let dir = root.join("template");
    std::fs::create_dir_all(&dir).expect("template folder");
    copy_tree(&repository().join("assets/demo"), &dir);
    std::fs::copy(repository().join("assets/mdr/arm.mdr"), dir.join("arm.mdr")).expect("copy arm.mdr");
    write_quake2(&dir);
    write_player(&dir.join("player"));
    let corpus = repository().join("../shared/corpus");
    let have_corpus = CORPUS_FILES.iter().all(|f| corpus.join(f).is_file());
    if have_corpus {
        for file in CORPUS_FILES {
            let source = corpus.join(file);
            std::fs::copy(&source, dir.join(source.file_name().expect("name"))).expect("copy corpus file");
        }
    }
    (root, have_corpus)
}

fn xvfb_available() -> bool {
    let found = Command::new("xvfb-run").arg("--help").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if !found {
        assert!(std::env::var_os("CI").is_none(), "xvfb-run is missing under CI: .ci/run should install xvfb");
    }
    found
}

const SUBCOMMANDS: [&str; 5] = ["info", "export", "render", "scan", "extract"];

/// Runs one quoted command in `dir`: the window's lines under a virtual display, made to
/// save a screenshot and exit when the line does not say `--exit` itself.
fn run_quoted(quoted: &Quoted, dir: &Path) -> Output {
    let binary = env!("CARGO_BIN_EXE_mdview");
    let mut command = if opens_window(quoted) {
        let mut command = Command::new("xvfb-run");
        command.args(["-a", "-s", "-screen 0 1600x1000x24", binary]).args(&quoted.words);
        if !quoted.words.iter().any(|w| w == "--exit") {
            let shot = dir.join("docs-window.png");
            command.arg("--screenshot").arg(shot).args(["--screenshot-after-frames", "3", "--exit"]);
        }
        let runtime = dir.join("runtime");
        std::fs::create_dir_all(&runtime).expect("runtime dir");
        command.env("MDVIEW_CONFIG_DIR", dir.join("config")).env("XDG_RUNTIME_DIR", runtime);
        command
    } else {
        let mut command = Command::new(binary);
        command.args(&quoted.words);
        command
    };
    let output = command.current_dir(dir).output().expect("running mdview");
    if let (Some(file), true) = (&quoted.stdout_to, output.status.success()) {
        std::fs::write(dir.join(file), &output.stdout).expect("writing the redirected output");
    }
    output
}

#[test]
fn every_documented_command_runs() {
    let (dir, have_corpus) = prepare_folder();
    let mut quoted = Vec::new();
    for document in DOCUMENTS {
        let text = std::fs::read_to_string(repository().join(document)).expect("document");
        quoted.extend(quoted_commands(&text, document));
    }
    for subcommand in SUBCOMMANDS {
        assert!(
            quoted.iter().any(|q| q.words.first().is_some_and(|w| w == subcommand)),
            "docs/cli.md quotes no `mdview {subcommand}` example"
        );
    }
    let adapter = render_common::have_adapter();
    let xvfb = xvfb_available();
    let mut runnable = Vec::new();
    for q in &quoted {
        let names_corpus = q.words.iter().any(|w| w.starts_with("Rabbit"));
        let draws = q.words.first().is_some_and(|w| w == "render");
        let skip = match () {
            _ if names_corpus && !have_corpus => Some("the corpus (../shared/corpus) is absent"),
            _ if draws && !adapter => Some("no wgpu adapter"),
            _ if opens_window(q) && !(xvfb && adapter) => Some("no xvfb-run or no wgpu adapter"),
            _ => None,
        };
        match skip {
            Some(why) => eprintln!("SKIPPED {}: mdview {} ({why})", q.place, q.words.join(" ")),
            None => runnable.push(q),
        }
    }
    // Each command runs in its own copy of the folder, so that they can run side by side and
    // none sees another's output; the window and the GIF encoder take seconds each.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let mut results: Vec<(usize, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut failed = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(q) = runnable.get(index) else { return failed };
                        let folder = dir.join(format!("{index:02}"));
                        copy_tree(&dir.join("template"), &folder);
                        let started = Instant::now();
                        let output = run_quoted(q, &folder);
                        let stderr = String::from_utf8_lossy(&output.stderr);
                        let line = format!("mdview {}", q.words.join(" "));
                        eprintln!("{}: {line}: {} in {:.1} s", q.place, output.status, started.elapsed().as_secs_f64());
                        if !output.status.success() || stderr.contains("panicked") {
                            let why = stderr.trim().replace('\n', "\n  ");
                            failed.push((index, format!("{}: {line}\n  {}\n  {why}", q.place, output.status)));
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a runner thread panicked")).collect()
    });
    results.sort();
    let failures: Vec<String> = results.into_iter().map(|(_, failure)| failure).collect();
    assert!(
        failures.is_empty(),
        "{} of {} documented commands failed:\n{}",
        failures.len(),
        runnable.len(),
        failures.join("\n")
    );
    assert!(!runnable.is_empty(), "no documented command ran");
    std::fs::remove_dir_all(&dir).ok();
}

/// Whether a quoted command opens the window (no subcommand).
fn opens_window(quoted: &Quoted) -> bool {
    quoted.words.first().is_none_or(|w| !SUBCOMMANDS.contains(&w.as_str()))
}

/// The options `mdview [SUBCOMMAND] --help` lists (`--name`), without clap's own.
fn options_in_help(subcommand: Option<&str>) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_mdview")).args(subcommand).arg("--help").output().expect("help");
    assert!(output.status.success(), "mdview {subcommand:?} --help failed");
    let help = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut options: Vec<String> = help
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with('-'))
        .filter_map(|line| line.split([' ', ',', '=', '<']).find(|w| w.starts_with("--")).map(str::to_string))
        .filter(|option| option != "--help" && option != "--version")
        .collect();
    options.dedup();
    options
}

#[test]
fn every_option_is_documented() {
    let cli = std::fs::read_to_string(repository().join("docs/cli.md")).expect("docs/cli.md");
    let mut missing = Vec::new();
    for subcommand in std::iter::once(None).chain(SUBCOMMANDS.map(Some)) {
        let options = options_in_help(subcommand);
        assert!(!options.is_empty(), "mdview {subcommand:?} --help: no options found");
        for option in options {
            if !cli.contains(&format!("`{option}")) && !cli.contains(&format!(" {option} ")) {
                missing.push(format!("mdview {} {option}", subcommand.unwrap_or("")));
            }
        }
    }
    assert!(missing.is_empty(), "options --help lists that docs/cli.md does not mention:\n{}", missing.join("\n"));
}

#[test]
fn shell_words_follow_the_shell() {
    assert_eq!(shell_words("mdview info a.md2   # a comment"), ["mdview", "info", "a.md2"]);
    assert_eq!(shell_words("mdview x 'a b' \"c#d\" e#f"), ["mdview", "x", "a b", "c#d", "e#f"]);
    let quoted = quoted_commands("text\n```sh\nmdview scan . > out.json  # note\n```\n```\nmdview no\n```\n", "t.md");
    assert_eq!(quoted.len(), 1);
    assert_eq!(quoted[0].words, ["scan", "."]);
    assert_eq!(quoted[0].stdout_to.as_deref(), Some("out.json"));
    assert_eq!(quoted[0].place, "t.md:3");
}
