//! Files served over plain HTTP on 127.0.0.1, as a registry's CDN or a company's mirror would serve
//! them: `GET /path` answers the file set for that path (with its length), else 404. The files can
//! be changed while it runs; every path asked is recorded.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// A running server; it stops with the test process.
pub struct StaticHttp {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl StaticHttp {
    /// Starts it on a free port, serving nothing yet.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let files: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let (f, a) = (files.clone(), asked.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (files, asked) = (f.clone(), a.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut request = String::new();
                    if reader.read_line(&mut request).is_err() {
                        return;
                    }
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                    }
                    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                    asked.lock().unwrap().push(path.clone());
                    let body = files.lock().unwrap().get(&path).cloned();
                    let mut stream = stream;
                    let _ = match body {
                        Some(body) => stream
                            .write_all(
                                format!(
                                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                                    body.len()
                                )
                                .as_bytes(),
                            )
                            .and_then(|()| stream.write_all(&body)),
                        None => stream
                            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
                    };
                });
            }
        });
        Self { base_url, files, asked }
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
    use std::io::Write;
    let script = format!("#!/bin/sh\nexec '{}' demo-agent \"$@\"\n", super::BIN);
    let mut tar = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(script.len() as u64);
    header.set_mode(0o755);
    tar.append_data(&mut header, path, script.as_bytes()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar.into_inner().unwrap()).unwrap();
    gz.finish().unwrap()
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}
