//! The engine guard: a small process between bookminer and an engine that
//! ends everything the engine started, even what left its process group
//! (`setsid`, a daemon's double fork).
//!
//! A process group cannot hold such a process: it is in a session of its
//! own, and when its parent dies the kernel hands it to PID 1. The guard is
//! a *child subreaper* (Linux's `PR_SET_CHILD_SUBREAPER`): every process
//! below it that loses its parent is handed to the guard instead, so the
//! guard can always find what is left of the engine's tree among its own
//! children, end it and reap it. A cgroup would hold the tree as well, but
//! needs a delegated hierarchy that a plain user often lacks; a PID
//! namespace needs privileges or user namespaces. The subreaper needs
//! nothing.
//!
//! The guard is bookminer's own binary, started again with [`GUARD_ARG`]:
//! bookminer's pid, then the engine's program and arguments. It starts the
//! engine with the guard's own standard streams (the pipes bookminer
//! speaks through), lets go of its copies, and then watches:
//!
//! * the engine leaves: the rest of its tree is ended and reaped, and the
//!   guard leaves as the engine did (the same exit code, or the same
//!   signal), so bookminer reads the engine's own status;
//! * bookminer asks (SIGTERM), or bookminer is gone (killed with SIGKILL
//!   included: the kernel's parent-death signal, and the guard's parent no
//!   longer being bookminer): the whole tree is ended and reaped, then the
//!   guard ends itself with SIGKILL, as the engine's group used to be.

use std::ffi::{OsStr, OsString};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The first argument that makes bookminer's binary an engine guard.
pub const GUARD_ARG: &str = "__engine-guard";

/// How often the guard looks at the engine and at bookminer.
const WATCH: Duration = Duration::from_millis(20);

/// How long an engine asked to end is given to finish leaving by itself:
/// its output closes a moment before its status can be read.
const LEAVING: Duration = Duration::from_millis(50);

/// The longest the guard spends ending a tree that keeps making processes.
const ENDING: Duration = Duration::from_secs(1);

/// Set by the guard's signal handler: bookminer asked it to end the engine.
static ASKED_TO_END: AtomicBool = AtomicBool::new(false);

/// Runs the guard of the command line `args` (bookminer's pid, then the
/// engine's program and arguments, as [`guarded`] writes them) and never
/// returns. A command line that is not one is said on standard error and
/// ends the guard with status 2.
pub fn run(args: &[OsString]) -> ! {
    let Some((parent, program, args)) = read_args(args) else {
        eprintln!("{GUARD_ARG}: expected bookminer's pid, then the engine's command line");
        std::process::exit(2)
    };
    become_subreaper();
    listen_for_the_end();
    if std::os::unix::process::parent_id() != parent {
        // bookminer was gone before the guard could start anything.
        end_itself()
    }
    let engine = match start_engine(program, args) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("cannot start the engine {}: {e}", program.to_string_lossy());
            std::process::exit(127)
        }
    };
    let Ok(engine) = libc::pid_t::try_from(engine.id()) else { end_itself() };
    let_go_of_streams();
    loop {
        if ASKED_TO_END.load(Ordering::Relaxed) || std::os::unix::process::parent_id() != parent {
            // An engine that was leaving by itself (its output closed, which
            // is often why bookminer asks) leaves its own status.
            if let Some(status) = left_within(engine, LEAVING) {
                end_tree();
                leave_as(status)
            }
            end_tree();
            end_itself()
        }
        match reap_any() {
            // The engine left: what it left behind is ended.
            Some((pid, status)) if pid == engine => {
                end_tree();
                leave_as(status)
            }
            // Something the engine started and left to the guard: reaped.
            Some(_) => continue,
            None => std::thread::sleep(WATCH),
        }
    }
}

/// The engine's status if it leaves within `grace`.
fn left_within(engine: libc::pid_t, grace: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + grace;
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status into a local integer.
        match unsafe { libc::waitpid(engine, &mut status, libc::WNOHANG) } {
            pid if pid == engine => return Some(std::os::unix::process::ExitStatusExt::from_raw(status)),
            0 if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => return None,
        }
    }
}

/// Reaps one child of the guard that has ended, without waiting: its pid
/// and status, or `None` when none has.
fn reap_any() -> Option<(libc::pid_t, ExitStatus)> {
    let mut status = 0;
    // SAFETY: waitpid writes the status into a local integer.
    match unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } {
        pid if pid > 0 => Some((pid, std::os::unix::process::ExitStatusExt::from_raw(status))),
        _ => None,
    }
}

/// The command line that runs `command` under a guard: bookminer's binary
/// `guard` with [`GUARD_ARG`], this process's pid, then the command's
/// program and arguments (its environment and folder carried over).
pub fn guarded(guard: &std::path::Path, command: &Command) -> Command {
    let mut wrapped = Command::new(guard);
    wrapped.arg(GUARD_ARG).arg(std::process::id().to_string());
    wrapped.arg(command.get_program()).args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => wrapped.env(key, value),
            None => wrapped.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        wrapped.current_dir(dir);
    }
    wrapped
}

/// bookminer's pid, the engine's program and its arguments.
fn read_args(args: &[OsString]) -> Option<(u32, &OsStr, &[OsString])> {
    let (parent, rest) = args.split_first()?;
    let parent = parent.to_str()?.parse().ok()?;
    let (program, args) = rest.split_first()?;
    Some((parent, program.as_os_str(), args))
}

/// Starts the engine with the guard's own streams; the kernel kills it if
/// the guard dies without ending it (killed with SIGKILL itself).
fn start_engine(program: &OsStr, args: &[OsString]) -> std::io::Result<std::process::Child> {
    let mut command = Command::new(program);
    command.args(args);
    super::parent_death::die_with_parent(&mut command, libc::SIGKILL);
    command.spawn()
}

/// Makes every orphan below the guard the guard's child.
fn become_subreaper() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes integers only.
    let made = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) };
    if made == -1 {
        eprintln!("engine guard: cannot become a subreaper: {}", std::io::Error::last_os_error());
    }
}

/// SIGTERM (bookminer's request, or its death) and SIGHUP end the engine;
/// SIGINT is left to bookminer, which decides what a Ctrl-C ends.
fn listen_for_the_end() {
    extern "C" fn asked(_: libc::c_int) {
        ASKED_TO_END.store(true, Ordering::Relaxed);
    }
    for signal in [libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is
        // async-signal-safe; `signal` takes a valid signal number and a
        // handler of the type it expects.
        unsafe {
            libc::signal(signal, asked as extern "C" fn(libc::c_int) as libc::sighandler_t);
        }
    }
    // SAFETY: SIG_IGN for a valid signal number.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
}

/// Points the guard's standard streams at /dev/null, so that the engine's
/// pipes close when the engine's tree has let go of them, not when the
/// guard does.
fn let_go_of_streams() {
    let Ok(null) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/null") else { return };
    let null = std::os::fd::AsRawFd::as_raw_fd(&null);
    for stream in [libc::STDIN_FILENO, libc::STDOUT_FILENO, libc::STDERR_FILENO] {
        // SAFETY: dup2 takes two descriptors, both open here; it closes
        // `stream` and makes it another name of /dev/null.
        unsafe {
            libc::dup2(null, stream);
        }
    }
}

/// Kills every process below the guard and reaps it: those killed leave
/// their own children to the guard, which kills them in turn, until none
/// is left (or [`ENDING`] has passed).
fn end_tree() {
    let deadline = Instant::now() + ENDING;
    loop {
        let children = children_of(std::process::id());
        if children.is_empty() || Instant::now() > deadline {
            return;
        }
        for &(pid, zombie) in &children {
            if !zombie {
                // SAFETY: kill takes no pointers; `pid` is a child of
                // ours not yet reaped, so its id is not another process's.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        for &(pid, _) in &children {
            reap(pid);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Reaps `pid` if it has ended, without waiting.
fn reap(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: waitpid writes the status into a local integer.
    unsafe {
        libc::waitpid(pid, &mut status, libc::WNOHANG);
    }
}

/// The children of `parent`, each with whether it has ended (a zombie), as
/// /proc lists them.
fn children_of(parent: u32) -> Vec<(libc::pid_t, bool)> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut children = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<libc::pid_t>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        if let Some((state, ppid)) = state_and_parent(&stat) {
            if ppid == parent {
                children.push((pid, state == 'Z'));
            }
        }
    }
    children
}

/// A process's state and parent from its /proc stat line, `pid (name) S
/// ppid …`: the name may hold spaces and parentheses, so the fields are
/// read after its last `)`.
fn state_and_parent(stat: &str) -> Option<(char, u32)> {
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let state = fields.next()?.chars().next()?;
    Some((state, fields.next()?.parse().ok()?))
}

/// Ends the guard with SIGKILL: what bookminer reads as an engine it ended.
fn end_itself() -> ! {
    // SAFETY: kill takes no pointers; it names this process.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::exit(137)
}

/// Leaves as the engine left: its exit code, or its signal (without a core
/// file: the engine's would have been its own).
fn leave_as(status: ExitStatus) -> ! {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        std::process::exit(code)
    }
    let signal = status.signal().unwrap_or(libc::SIGKILL);
    let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: setrlimit reads a local struct; signal restores the default
    // action of a valid signal number; kill names this process.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        libc::kill(libc::getpid(), signal);
    }
    std::process::exit(128 + signal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_after_the_name_whatever_it_holds() {
        assert_eq!(state_and_parent("42 (sleep) S 7 42 42 0"), Some(('S', 7)));
        assert_eq!(state_and_parent("42 (a) Z (b) R 9 1 1"), Some(('R', 9)));
        assert_eq!(state_and_parent("42 (x y) Z 1 0"), Some(('Z', 1)));
        assert_eq!(state_and_parent("42 (cut"), None);
    }

    #[test]
    fn the_guard_reads_its_command_line() {
        let args: Vec<OsString> = ["12", "sh", "-c", "edax"].iter().map(OsString::from).collect();
        let (parent, program, rest) = read_args(&args).unwrap();
        assert_eq!((parent, program), (12, OsStr::new("sh")));
        assert_eq!(rest, &args[2..]);
        assert!(read_args(&args[..1]).is_none(), "no program");
        assert!(read_args(&[OsString::from("x"), OsString::from("sh")]).is_none(), "no pid");
    }
}
