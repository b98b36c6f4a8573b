//! Files served over plain HTTP on 127.0.0.1, as a registry's CDN or a company's mirror would serve
//! them: `GET /path` answers the file set for that path (with its length), else 404. The files can
//! be changed while it runs; every path asked is recorded. Served by `common::http`.

use std::collections::HashMap;
use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex};

use super::http::{self, Reply};

/// A running server; it stops with the test process.
pub struct StaticHttp {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    asked: Arc<Mutex<Vec<String>>>,
    held: Held,
}

/// Paths whose answers stop half-way until released.
type Held = Arc<(Mutex<HashSet<String>>, Condvar)>;

impl StaticHttp {
    /// Starts it on a free port, serving nothing yet.
    pub fn start() -> Self {
        let files: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let held: Held = Arc::default();
        let (f, a, hl) = (files.clone(), asked.clone(), held.clone());
        let base_url = http::serve(move |request| {
            let path = request.path;
            a.lock().unwrap().push(path.clone());
            let Some(body) = f.lock().unwrap().get(&path).cloned() else { return Reply::not_found() };
            let held = hl.clone();
            // The second half waits while the path is held.
            let wait = move || {
                let (paths, released) = &*held;
                let mut paths = paths.lock().unwrap();
                while paths.contains(&path) {
                    paths = released.wait(paths).unwrap();
                }
            };
            Reply { midway: Some(Box::new(wait)), ..Reply::ok("", body) }
        });
        Self { base_url, files, asked, held }
    }

    /// Answers to `path` stop after half the file until the guard is dropped (also when the test
    /// fails: a download left waiting would keep the test's runtime from ending).
    #[must_use = "the answers are held while the guard lives"]
    pub fn hold(&self, path: &str) -> Hold {
        self.held.0.lock().unwrap().insert(path.to_string());
        Hold { held: self.held.clone(), path: path.to_string() }
    }

    /// Serves `body` at `path` (`/registry.json`) from now on.
    pub fn put(&self, path: &str, body: impl Into<Vec<u8>>) {
        self.files.lock().unwrap().insert(path.to_string(), body.into());
    }

    /// Stops serving `path` (404 from now on).
    pub fn remove(&self, path: &str) {
        self.files.lock().unwrap().remove(path);
    }

    /// The paths asked so far.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

/// A `.tar.gz` holding one program at `path`: a launcher of the built-in demo agent (a registry
/// entry's archive).
pub fn demo_agent_tar_gz(path: &str) -> Vec<u8> {
    demo_agent_tar_gz_with(path, 0)
}

/// As `demo_agent_tar_gz`, with a file of `extra` bytes that do not compress beside the program
/// (an archive large enough for its download to be seen under way).
pub fn demo_agent_tar_gz_with(path: &str, extra: usize) -> Vec<u8> {
    use std::io::Write;
    let script = format!("#!/bin/sh\nexec '{}' demo-agent \"$@\"\n", super::BIN);
    let mut tar = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(script.len() as u64);
    header.set_mode(0o755);
    tar.append_data(&mut header, path, script.as_bytes()).unwrap();
    if extra > 0 {
        // xorshift: bytes a compressor cannot shrink.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..extra)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let mut header = tar::Header::new_gnu();
        header.set_size(noise.len() as u64);
        header.set_mode(0o644);
        tar.append_data(&mut header, "data.bin", noise.as_slice()).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar.into_inner().unwrap()).unwrap();
    gz.finish().unwrap()
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Answers held (`StaticHttp::hold`) until this is dropped.
pub struct Hold {
    held: Held,
    path: String,
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.held.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&self.path);
        self.held.1.notify_all();
    }
}
