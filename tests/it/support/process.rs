//! Child processes that cannot outlive the test process.
//!
//! Three layers, because a test can end in three ways:
//! - a normal `Drop` (a private [`Cluster`](super::cluster::Cluster) going out of scope) kills and
//!   reaps its processes;
//! - the test binary exiting (libtest calls `exit`, also after failed tests) runs an `atexit` hook
//!   that kills every process still registered, which covers the shared clusters held in statics
//!   (statics are never dropped);
//! - the test binary being killed (a CI timeout, `SIGKILL`, a crash): every child is spawned with
//!   `PR_SET_PDEATHSIG = SIGKILL`. The kernel sends that signal when the *thread* that forked the
//!   child exits, so all children are forked by one spawner thread that lives as long as the process.
//!
//! Working directories are swept the same way: each run's directory carries the owning pid, and a
//! later run removes directories whose owner is gone.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, Once, OnceLock};
use std::time::Duration;

type SpawnReply = mpsc::Sender<io::Result<Child>>;

static SPAWNER: OnceLock<Mutex<mpsc::Sender<(Command, SpawnReply)>>> = OnceLock::new();
/// pid -> name of every live child, for the exit hook.
static LIVE: Mutex<BTreeMap<u32, String>> = Mutex::new(BTreeMap::new());
/// Work directories to remove at exit (unless a test failed or KUEUE_TESTENV_KEEP is set).
static DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static FAILED: AtomicBool = AtomicBool::new(false);
static EXIT_HOOK: Once = Once::new();

/// Marks the run as failed: work directories (with the logs) are then kept at exit.
pub fn mark_failed() {
    FAILED.store(true, Ordering::SeqCst);
}

pub fn failed() -> bool {
    FAILED.load(Ordering::SeqCst)
}

fn keep_dirs() -> bool {
    failed() || std::env::var_os("KUEUE_TESTENV_KEEP").is_some_and(|v| v != "0" && !v.is_empty())
}

extern "C" fn at_exit() {
    // No blocking locks here: another thread may still hold one while the process exits.
    if let Ok(live) = LIVE.try_lock() {
        for pid in live.keys() {
            // SAFETY: plain syscall on a pid we spawned and have not reaped.
            unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
        }
        // Reap them: init here may not, and zombies would pile up across test runs.
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        for pid in live.keys() {
            loop {
                let mut status = 0;
                // SAFETY: waiting on our own child.
                let r = unsafe { libc::waitpid(*pid as libc::pid_t, &mut status, libc::WNOHANG) };
                if r != 0 || std::time::Instant::now() > deadline {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
    if let Ok(dirs) = DIRS.try_lock() {
        if keep_dirs() {
            for d in dirs.iter() {
                eprintln!(
                    "testenv: kept control-plane work directory (logs in logs/): {}",
                    d.display()
                );
            }
        } else {
            for d in dirs.iter() {
                let _ = fs::remove_dir_all(d);
            }
        }
    }
}

fn install_exit_hook() {
    EXIT_HOOK.call_once(|| {
        // SAFETY: registering a plain extern "C" fn.
        unsafe { libc::atexit(at_exit) };
    });
}

fn spawner() -> &'static Mutex<mpsc::Sender<(Command, SpawnReply)>> {
    SPAWNER.get_or_init(|| {
        install_exit_hook();
        let (tx, rx) = mpsc::channel::<(Command, SpawnReply)>();
        std::thread::Builder::new()
            .name("testenv-spawner".into())
            .spawn(move || {
                // The sender lives in a static, so this loop (and the thread) ends with the process.
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .expect("start the testenv spawner thread");
        Mutex::new(tx)
    })
}

/// A child process whose output goes to a log file. Killed (SIGKILL) and reaped on drop.
pub struct ManagedProcess {
    name: String,
    child: Child,
    log: PathBuf,
}

impl ManagedProcess {
    /// Starts `cmd` with stdout and stderr appended to `log`, stdin closed, and a parent-death
    /// signal so it dies with the test process.
    pub fn spawn(name: &str, mut cmd: Command, log: &Path) -> io::Result<ManagedProcess> {
        if let Some(parent) = log.parent() {
            fs::create_dir_all(parent)?;
        }
        let out = File::options().create(true).append(true).open(log)?;
        let err = out.try_clone()?;
        cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        let parent_pid = std::process::id() as libc::pid_t;
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                // The parent may have died between fork and prctl: then nobody would kill us.
                if libc::getppid() != parent_pid {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
        let (reply_tx, reply_rx) = mpsc::channel();
        spawner()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send((cmd, reply_tx))
            .map_err(|_| io::Error::other("testenv spawner thread is gone"))?;
        let child = reply_rx
            .recv()
            .map_err(|_| io::Error::other("testenv spawner thread is gone"))??;
        LIVE.lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(child.id(), name.to_string());
        Ok(ManagedProcess {
            name: name.to_string(),
            child,
            log: log.to_path_buf(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// `Some(status)` once the process has exited.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Kills (SIGKILL) and reaps the process. Idempotent.
    pub fn kill(&mut self) {
        if self.exited().is_none() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        LIVE.lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.child.id());
    }

    /// The last `lines` lines of the log.
    pub fn log_tail(&self, lines: usize) -> String {
        tail(&self.log, lines)
    }
}

impl Drop for ManagedProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The last `lines` lines of a file (reads at most the last 256 KiB).
pub fn tail(path: &Path, lines: usize) -> String {
    let Ok(mut f) = File::open(path) else {
        return format!("(no log at {})", path.display());
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(256 * 1024);
    if f.seek(SeekFrom::Start(start)).is_err() {
        return String::new();
    }
    let mut buf = Vec::new();
    let _ = f.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Creates a fresh work directory `<tmp>/kubectl-kueue-testenv/<pid>-<n>` registered for removal at
/// exit, after sweeping directories left by test processes that no longer exist.
pub fn work_dir() -> io::Result<PathBuf> {
    static SWEEP: Once = Once::new();
    static N: AtomicU64 = AtomicU64::new(0);
    install_exit_hook();
    let base = std::env::temp_dir().join("kubectl-kueue-testenv");
    fs::create_dir_all(&base)?;
    SWEEP.call_once(|| sweep_stale(&base));
    let dir = base.join(format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    fs::create_dir_all(&dir)?;
    DIRS.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(dir.clone());
    Ok(dir)
}

/// Removes a work directory now (a private cluster's drop), unless logs are to be kept.
pub fn remove_work_dir(dir: &Path) {
    let mut dirs = DIRS.lock().unwrap_or_else(|p| p.into_inner());
    if keep_dirs() || std::thread::panicking() {
        return;
    }
    dirs.retain(|d| d != dir);
    let _ = fs::remove_dir_all(dir);
}

fn sweep_stale(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 only checks for existence.
        let alive = unsafe { libc::kill(pid, 0) } == 0
            || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        if !alive && pid != std::process::id() as i32 {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// A free TCP port on 127.0.0.1 (the OS picks it; there is a small window before it is used).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind 127.0.0.1:0 to find a free port")
}

/// Random hex string from the kernel's CSPRNG.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .expect("read /dev/urandom");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Waits until `cond` returns `Some`, polling every `every`, for at most `timeout`.
pub fn poll<T>(
    timeout: Duration,
    every: Duration,
    mut cond: impl FnMut() -> Option<T>,
) -> Option<T> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if let Some(v) = cond() {
            return Some(v);
        }
        if std::time::Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(every);
    }
}
