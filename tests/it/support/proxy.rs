//! A small TCP proxy in front of the API server that a test can pause: while paused it still
//! accepts connections and reads what clients send, but forwards nothing either way (a
//! black hole: a stalled API server or a dead network path, as a client sees it). TLS passes
//! through untouched (the API server's certificate is for 127.0.0.1, as the proxy's address).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub struct Proxy {
    pub port: u16,
    paused: Arc<AtomicBool>,
    stopped: Arc<AtomicBool>,
}

impl Proxy {
    /// Forwards 127.0.0.1:<port> to `upstream` (`host:port`).
    pub fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().unwrap().port();
        let paused = Arc::new(AtomicBool::new(false));
        let stopped = Arc::new(AtomicBool::new(false));
        let upstream = upstream.to_string();
        let (p, s) = (paused.clone(), stopped.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(client) = client else { continue };
                let (p, s, upstream) = (p.clone(), s.clone(), upstream.clone());
                std::thread::spawn(move || connection(client, &upstream, p, s));
            }
        });
        Proxy {
            port,
            paused,
            stopped,
        }
    }

    /// `https://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// Black-holes every connection, old and new, until [`resume`](Self::resume).
    pub fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
    }

    pub fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn connection(
    client: TcpStream,
    upstream: &str,
    paused: Arc<AtomicBool>,
    stopped: Arc<AtomicBool>,
) {
    let Ok(server) = TcpStream::connect(upstream) else {
        return;
    };
    let (c2, s2) = match (client.try_clone(), server.try_clone()) {
        (Ok(c), Ok(s)) => (c, s),
        _ => return,
    };
    let (p2, st2) = (paused.clone(), stopped.clone());
    std::thread::spawn(move || pump(c2, s2, p2, st2));
    pump(server, client, paused, stopped);
}

/// Copies `from` to `to`, dropping what arrives while paused; ends when either side closes.
fn pump(mut from: TcpStream, mut to: TcpStream, paused: Arc<AtomicBool>, stopped: Arc<AtomicBool>) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if stopped.load(Ordering::SeqCst) {
            break;
        }
        if paused.load(Ordering::SeqCst) {
            continue;
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Both);
    let _ = from.shutdown(Shutdown::Both);
}
