//! The kernel's parent-death signal (Linux), which both the engines'
//! process groups and the engine guard set on what they start.

/// Has the kernel send `signal` to the process `command` starts when the
/// thread that started it ends (Linux's parent-death signal).
pub(super) fn die_with_parent(command: &mut std::process::Command, signal: libc::c_int) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec, where
    // only async-signal-safe calls are allowed: prctl is one (a system
    // call), and nothing is allocated or locked.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong, 0, 0, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
