//! Everything bookminer asks of the operating system through `unsafe`
//! calls, in one place, each with its safety argument: a book's bytes
//! mapped (or owned, for books built in memory), the guard that lets a book
//! shrink under the map without killing the process, hints on how our
//! own large allocations are backed, and the engines' process groups.
//!
//! Edax rewrites `book.dat` in place when it saves a book. A mapped file
//! that shrinks makes every read past its new end raise SIGBUS, which would
//! end the process before it could remove its temporary outputs. So while a
//! book is mapped, a SIGBUS handler checks whether the faulting address lies
//! in one of our maps; if so it puts zero-filled memory over the rest of
//! that map, notes that the book changed, and lets the read go on (reading
//! zeros). Readers never trust bytes (they check lengths and moves), and the
//! caller asks [`Bytes::changed`] before believing any result. A fault
//! anywhere else is not ours: the handler steps aside and the signal kills
//! the process as it would have.

use crate::failure::{io_kind, ErrorKind};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A file that could not be opened, read or mapped.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct OsError {
    /// The file.
    pub path: PathBuf,
    #[source]
    /// Why.
    pub source: io::Error,
}

impl OsError {
    /// The failure class, for the exit status.
    pub fn kind(&self) -> ErrorKind {
        io_kind(&self.source)
    }
}

/// The bytes of a book: mapped from a file, or owned (books built in memory).
pub struct Bytes {
    storage: Storage,
    /// The file as it was when mapped: its path and what tells it changed.
    source: Option<(PathBuf, Stamp)>,
}

/// What tells that a file changed: its size and modification time, and on
/// Unix its device, inode and status-change time. A program can put the
/// modification time back after rewriting a file (`touch -r`, `cp -p`), but
/// not the status-change time, which every write sets; a file replaced by
/// another (rename) has another inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    identity: (u64, u64, i64, i64),
}

impl Stamp {
    fn of(metadata: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: metadata.len(),
            modified: metadata.modified().ok(),
            #[cfg(unix)]
            identity: (metadata.dev(), metadata.ino(), metadata.ctime(), metadata.ctime_nsec()),
        }
    }
}

enum Storage {
    /// The guard is dropped (unregistered) before the map is unmapped.
    Mapped {
        guard: guard::Registration,
        map: memmap2::Mmap,
    },
    Owned(Vec<u8>),
}

/// Below this size a file is read rather than mapped (an empty file cannot
/// be mapped at all, and a header alone gains nothing from it).
const MAP_FROM: u64 = 64;

impl Bytes {
    /// Bytes built in memory.
    pub fn owned(bytes: Vec<u8>) -> Bytes {
        Bytes { storage: Storage::Owned(bytes), source: None }
    }

    /// Maps a book file (reads it, when very short), naming the file in errors.
    pub fn open(path: &Path) -> Result<Bytes, OsError> {
        let io = |source| OsError { path: path.to_path_buf(), source };
        let (file, metadata) = crate::files::input::open_regular(path).map_err(io)?;
        let source = Some((path.to_path_buf(), Stamp::of(&metadata)));
        if metadata.len() < MAP_FROM {
            let mut bytes = Vec::new();
            file.take(MAP_FROM).read_to_end(&mut bytes).map_err(io)?;
            return Ok(Bytes { storage: Storage::Owned(bytes), source });
        }
        // SAFETY: the map is read-only and lives as long as this `Bytes`;
        // every access goes through bounds-checked slices of the mapped
        // length. The one way the mapped bytes can fail under us, the file
        // shrinking (SIGBUS on reads past its new end), is caught by the
        // guard registered before any byte is read; a file rewritten in
        // place only changes bytes, which no reader trusts.
        let map = unsafe { memmap2::MmapOptions::new().map(&file) }.map_err(io)?;
        let guard = guard::Registration::new(map.as_ptr() as usize, map.len());
        load(&map);
        Ok(Bytes { storage: Storage::Mapped { map, guard }, source })
    }

    /// The book's bytes.
    pub fn as_slice(&self) -> &[u8] {
        match &self.storage {
            Storage::Mapped { map, .. } => map,
            Storage::Owned(vec) => vec,
        }
    }

    /// True if the file shrank under the map, or if its [`Stamp`] is no
    /// longer what it was when it was mapped: the bytes read may not be the
    /// book's.
    pub fn changed(&self) -> bool {
        let faulted = match &self.storage {
            Storage::Mapped { guard, .. } => guard.faulted(),
            Storage::Owned(_) => false,
        };
        faulted
            || self
                .source
                .as_ref()
                .is_some_and(|(path, stamp)| std::fs::metadata(path).map_or(true, |now| Stamp::of(&now) != *stamp))
    }
}

/// Brings the whole book into the map before the walk reads it, asking
/// first for 2 MiB pages. The walk reads records all over the file, and with
/// 4 KiB pages nearly every read also misses the TLB; in a virtual machine
/// each such miss walks two sets of page tables. The kernel can map the file
/// in 2 MiB pages only where it reads the file into its cache itself, after
/// this advice (a book not yet cached, e.g. after a reboot or
/// `dd if=BOOK iflag=nocache count=0`); a book already cached in small pages
/// is mapped as it is. Advice only: nothing read changes whether or not it is
/// taken. Populating stops, instead of raising SIGBUS, where the file has
/// shrunk; the guard and [`Bytes::changed`] deal with that as they do later.
fn load(map: &memmap2::Mmap) {
    #[cfg(target_os = "linux")]
    {
        let _ = map.advise(memmap2::Advice::HugePage);
        if map.advise(memmap2::Advice::PopulateRead).is_ok() {
            return;
        }
    }
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::WillNeed);
    #[cfg(not(unix))]
    let _ = map;
}

#[cfg(unix)]
mod guard {
    //! The SIGBUS handler and the table of maps it protects.

    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Once;

    /// The page size, read once when the handler is installed: the handler
    /// itself calls only async-signal-safe functions, and `sysconf` is not
    /// one of them.
    static PAGE_SIZE: AtomicUsize = AtomicUsize::new(4096);

    /// How many maps can be guarded at once (a run maps one book; tests a few).
    const SLOTS: usize = 64;

    /// One guarded map: its address range (0 length: free) and whether it faulted.
    struct Slot {
        start: AtomicUsize,
        len: AtomicUsize,
        faulted: AtomicBool,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const FREE: Slot = Slot { start: AtomicUsize::new(0), len: AtomicUsize::new(0), faulted: AtomicBool::new(false) };
    static SLOTS_IN_USE: [Slot; SLOTS] = [FREE; SLOTS];
    static INSTALL: Once = Once::new();

    /// A map registered with the handler until dropped.
    pub struct Registration {
        slot: Option<usize>,
    }

    impl Registration {
        /// Guards `len` bytes from `start`. With every slot taken the map is
        /// unguarded (a SIGBUS then ends the process, as without a guard).
        pub fn new(start: usize, len: usize) -> Registration {
            INSTALL.call_once(install);
            for (i, slot) in SLOTS_IN_USE.iter().enumerate() {
                if slot.len.compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    slot.faulted.store(false, Ordering::Relaxed);
                    slot.start.store(start, Ordering::Relaxed);
                    slot.len.store(len, Ordering::Release);
                    return Registration { slot: Some(i) };
                }
            }
            tracing::warn!("too many books mapped at once: this one is not guarded against shrinking");
            Registration { slot: None }
        }

        pub fn faulted(&self) -> bool {
            self.slot.is_some_and(|i| SLOTS_IN_USE[i].faulted.load(Ordering::Acquire))
        }
    }

    impl Drop for Registration {
        fn drop(&mut self) {
            if let Some(i) = self.slot {
                SLOTS_IN_USE[i].len.store(0, Ordering::Release);
            }
        }
    }

    fn install() {
        // SAFETY: sysconf only reads a system constant; called before the
        // handler exists, never from it.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if let Ok(page) = usize::try_from(page) {
            if page.is_power_of_two() {
                PAGE_SIZE.store(page, Ordering::Relaxed);
            }
        }
        // SAFETY: `sigaction` is given a zeroed, then filled, struct that
        // outlives the call; the handler only does async-signal-safe work
        // (atomics, mmap, sigaction).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) != 0 {
                tracing::warn!("cannot catch SIGBUS: a book rewritten while it is read will end the run abruptly");
            }
        }
    }

    /// The SIGBUS handler.
    extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo_t for SA_SIGINFO handlers.
        let address = unsafe { (*info).si_addr() } as usize;
        for slot in &SLOTS_IN_USE {
            let len = slot.len.load(Ordering::Acquire);
            let start = slot.start.load(Ordering::Relaxed);
            if len == 0 || len == usize::MAX || address < start || address - start >= len {
                continue;
            }
            if zero_fill(start, len, address) {
                slot.faulted.store(true, Ordering::Release);
                return; // the read is retried and now finds zeros
            }
        }
        // Not one of ours: restore the default action; returning re-raises it.
        // SAFETY: `sigaction` is async-signal-safe (`signal` is not on POSIX's
        // list); the struct is zeroed, then given the default action.
        unsafe {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &default, std::ptr::null_mut());
        }
    }

    /// Maps zero-filled private memory over the map from the faulting page to its end.
    fn zero_fill(start: usize, len: usize, address: usize) -> bool {
        let page = PAGE_SIZE.load(Ordering::Relaxed);
        let from = address & !(page - 1);
        let end = start + len;
        // SAFETY: the range lies within a map this process made and still
        // holds (its slot is registered until the map is dropped); MAP_FIXED
        // replaces those pages only, with readable zeros of the same extent.
        let mapped = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        mapped != libc::MAP_FAILED
    }
}

#[cfg(not(unix))]
mod guard {
    //! Elsewhere a shrinking file is not caught; the size and time check remains.
    pub struct Registration;

    impl Registration {
        pub fn new(_: usize, _: usize) -> Registration {
            Registration
        }

        pub fn faulted(&self) -> bool {
            false
        }
    }
}

/// Makes a write past the file size limit (`ulimit -f`) fail with an
/// error instead of ending the process with SIGXFSZ: the error removes the
/// temporary outputs and leaves the previous ones, as any failed write does.
pub fn fail_writes_past_the_size_limit() {
    #[cfg(unix)]
    // SAFETY: ignoring a signal installs no handler and is always sound.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

// Hints on our own allocations.
//
// Advice to the kernel on how our own large allocations (the index, the
// resolved targets, the repeated-line tables) are backed. Each call is only
// a hint about pages, never about their contents: refused or unknown (an
// older kernel, another system), it changes nothing but the time taken.

/// The whole pages (of `page` bytes) inside a vector's allocation, as
/// (start address, length), if there are any.
#[cfg(target_os = "linux")]
fn whole_pages<T>(vec: &mut Vec<T>, page: usize) -> Option<(*mut libc::c_void, usize)> {
    let start = vec.as_mut_ptr() as usize;
    let end = start + vec.capacity() * std::mem::size_of::<T>();
    let (from, to) = (start.next_multiple_of(page), end - end % page);
    // Lazily: an allocation too small to hold a whole page (an empty one
    // included) has `to` before `from`.
    (to > from).then(|| (from as *mut libc::c_void, to - from))
}

/// Asks the kernel to back a large, not yet touched allocation with huge
/// pages: lookups land anywhere in it, and with 4 KiB pages nearly every
/// one also misses the TLB.
pub fn advise_huge_pages<T>(vec: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    if let Some((from, len)) = whole_pages(vec, 2 << 20) {
        // SAFETY: the range lies within the vector's own allocation (rounded
        // inwards to whole huge pages); MADV_HUGEPAGE changes how pages are
        // backed, never their contents or protection.
        unsafe {
            libc::madvise(from, len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = vec;
}

/// Asks the kernel to map every page of a large, zeroed, not yet touched
/// allocation now, in one call, rather than at a fault per page as it is
/// first written. A table that is filled at random is written all over at
/// once anyway; mapping 64 MiB page by page took about half of the time
/// spent doubling such a table.
pub fn populate<T>(vec: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    if let Some((from, len)) = whole_pages(vec, 4096) {
        // SAFETY: the range lies within the vector's own allocation (rounded
        // inwards to whole pages); MADV_POPULATE_WRITE maps the pages as a
        // write would, without writing: their contents stay as they are.
        unsafe {
            libc::madvise(from, len, libc::MADV_POPULATE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = vec;
}

#[cfg(target_os = "linux")]
pub mod engine_guard;
#[cfg(target_os = "linux")]
mod parent_death;
#[cfg(target_os = "linux")]
use parent_death::die_with_parent;

/// What leads each engine's process group when no guard is set: `sh`
/// waiting on its standard input, a pipe whose write end bookminer alone
/// holds (close-on-exec, so no engine inherits it). The pipe ends when
/// bookminer does, however it ends (SIGKILL included): then the watchdog
/// kills its whole group, the engine with every process it started, and
/// itself. It names no group by number (`0` is its own), so it can never
/// kill a group whose id was reused. Nothing is ever written to the pipe.
#[cfg(unix)]
const WATCHDOG: &str = "read _; kill -s KILL 0";

/// The program that guards engines ([`engine_guard`]): bookminer's binary,
/// set once by it at start. Without one, engines are held by a process
/// group alone ([`WATCHDOG`]).
#[cfg(target_os = "linux")]
static GUARD: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Has every engine started from now on run under `program`'s engine
/// guard ([`engine_guard`]): the binary that calls this must hand its
/// [`engine_guard::GUARD_ARG`] command lines to [`engine_guard::run`].
/// Only the first call counts. Elsewhere than on Linux it does nothing.
pub fn guard_engines_with(program: PathBuf) {
    #[cfg(target_os = "linux")]
    let _ = GUARD.set(program);
    #[cfg(not(target_os = "linux"))]
    let _ = program;
}

/// What holds one engine and everything it starts, so that none of it
/// outlives bookminer.
///
/// On Linux, with a guard set ([`guard_engines_with`]), the engine runs
/// under the engine guard ([`engine_guard`]), a subreaper that ends the
/// engine's whole tree, what left its process group (`setsid`) included,
/// when bookminer asks, when the engine leaves, and when bookminer dies
/// (SIGKILL included).
///
/// Else the engine runs in a process group led by a watchdog
/// ([`WATCHDOG`]), which kills the group when bookminer dies; the kernel's
/// parent-death signal reaches only the process bookminer started (on
/// Linux it is set too, and ends that one at once). A process that leaves
/// the group is not held.
///
/// Either way the group is not the terminal's foreground group, so Ctrl-C
/// reaches bookminer alone, which then ends the engine itself
/// ([`EngineGroup::end`]). Elsewhere than on Unix there are no process
/// groups to lead: ending the group kills the engine alone (what that
/// started may outlive it).
pub struct EngineGroup {
    #[cfg(unix)]
    leader: Leader,
}

/// What leads an engine's process group.
#[cfg(unix)]
enum Leader {
    /// The watchdog, reaped when the group is dropped.
    Watchdog(std::process::Child),
    /// The engine guard, `bookminer` started again: the process
    /// [`EngineGroup::spawn`] returns, which its caller reaps.
    #[cfg(target_os = "linux")]
    Guard(PathBuf),
}

impl EngineGroup {
    /// Makes ready to hold one engine: under the guard if one is set, else
    /// in a group led by a watchdog, started now.
    #[cfg(unix)]
    pub fn start() -> std::io::Result<EngineGroup> {
        #[cfg(target_os = "linux")]
        if let Some(guard) = GUARD.get() {
            return Ok(EngineGroup { leader: Leader::Guard(guard.clone()) });
        }
        use std::os::unix::process::CommandExt;
        let mut command = std::process::Command::new("sh");
        command.arg("-c").arg(WATCHDOG);
        command.stdin(std::process::Stdio::piped());
        command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        command.process_group(0);
        Ok(EngineGroup { leader: Leader::Watchdog(command.spawn()?) })
    }

    /// No group to lead: nothing to start.
    #[cfg(not(unix))]
    pub fn start() -> std::io::Result<EngineGroup> {
        Ok(EngineGroup {})
    }

    /// Starts `command` held by the group: under the guard (the process
    /// returned is the guard, which speaks through the same streams), or
    /// in the watchdog's group. On Linux the process is also told when the
    /// thread that started it ends, bookminer killed with SIGKILL included.
    pub fn spawn(&self, command: &mut std::process::Command) -> std::io::Result<std::process::Child> {
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            match &self.leader {
                #[cfg(target_os = "linux")]
                Leader::Guard(guard) => {
                    let mut guarded = engine_guard::guarded(guard, command);
                    guarded.stdin(std::process::Stdio::piped());
                    guarded.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
                    guarded.process_group(0);
                    // The guard ends the engine's tree on SIGTERM, then itself.
                    die_with_parent(&mut guarded, libc::SIGTERM);
                    return guarded.spawn();
                }
                Leader::Watchdog(watchdog) => {
                    let group = i32::try_from(watchdog.id()).map_err(std::io::Error::other)?;
                    command.process_group(group);
                    #[cfg(target_os = "linux")]
                    die_with_parent(command, libc::SIGKILL);
                }
            }
        }
        command.spawn()
    }

    /// Ends `engine`, a process [`EngineGroup::spawn`] started and its
    /// caller has not reaped: the guard is asked to end the engine's tree
    /// and then itself (SIGTERM); the watchdog's group is killed whole
    /// (SIGKILL); elsewhere than on Unix, the engine alone is killed. A
    /// process already gone is not an error.
    pub fn end(&self, engine: &mut std::process::Child) {
        #[cfg(unix)]
        match &self.leader {
            #[cfg(target_os = "linux")]
            Leader::Guard(_) => {
                // Not reaped (try_wait says it runs), so its id is still its own.
                if matches!(engine.try_wait(), Ok(None)) {
                    if let Ok(pid) = libc::pid_t::try_from(engine.id()) {
                        // SAFETY: kill takes no pointers; `pid` is our
                        // child, not yet reaped.
                        unsafe {
                            libc::kill(pid, libc::SIGTERM);
                        }
                    }
                }
            }
            Leader::Watchdog(_) => {
                let _ = engine;
                self.kill();
            }
        }
        #[cfg(not(unix))]
        let _ = engine.kill();
    }

    /// Whether `status` is that of a process [`EngineGroup::end`] ended,
    /// rather than one that left by itself. Only Unix tells (by the
    /// signal); elsewhere a killed process has an exit code like any other.
    pub fn ended_by_us(status: &std::process::ExitStatus) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            status.signal() == Some(libc::SIGKILL)
        }
        #[cfg(not(unix))]
        {
            let _ = status;
            false
        }
    }

    /// Sends SIGKILL to the watchdog's whole group. A group already gone is
    /// not an error; under the guard there is no group of ours to kill.
    #[cfg(unix)]
    fn kill(&self) {
        let Leader::Watchdog(watchdog) = &self.leader else { return };
        if let Ok(pid) = libc::pid_t::try_from(watchdog.id()) {
            if pid > 0 {
                // SAFETY: kill takes no pointers; a negative pid names the
                // group the watchdog leads, a child of ours reaped only once
                // it is dropped, after this: its id, and so the group's,
                // cannot have gone to another process.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
        }
    }
}

#[cfg(unix)]
impl Drop for EngineGroup {
    fn drop(&mut self) {
        self.kill();
        let Leader::Watchdog(watchdog) = &mut self.leader else { return };
        // Killed: it ends at once (a bounded wait all the same, as for engines).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while matches!(watchdog.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn allocations_without_a_whole_page_have_none_and_do_not_fail() {
        for capacity in [0usize, 1, 1000] {
            let mut small: Vec<u64> = Vec::with_capacity(capacity);
            assert_eq!(whole_pages(&mut small, 2 << 20), None, "{capacity} words");
            advise_huge_pages(&mut small);
            populate(&mut small);
        }
        let mut large: Vec<u64> = Vec::with_capacity(1 << 20);
        let (from, len) = whole_pages(&mut large, 4096).expect("8 MiB hold whole pages");
        let start = large.as_ptr() as usize;
        assert!(from as usize >= start && from as usize + len <= start + (8 << 20));
        assert_eq!((from as usize % 4096, len % 4096), (0, 0));
    }
}
