//! Unpacking a downloaded agent: `.tar.gz`/`.tgz`, `.tar.bz2`/`.tbz2`, `.tar`, `.zip`, or the program
//! itself (any other name). Entries that would land outside the folder (`..`, absolute paths,
//! links out) are refused by the `tar` and `zip` crates' own checks.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;

/// The kinds of download.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A gzip-compressed tar.
    TarGz,
    /// A bzip2-compressed tar.
    TarBz2,
    /// A plain tar.
    Tar,
    /// A zip.
    Zip,
    /// The program itself.
    Raw,
}

/// The kind of download `url` names (by its file name, without query or fragment).
pub fn kind_of(url: &str) -> Kind {
    let path = url.split(['?', '#']).next().unwrap_or(url).to_ascii_lowercase();
    if path.ends_with(".tar.gz") || path.ends_with(".tgz") {
        Kind::TarGz
    } else if path.ends_with(".tar.bz2") || path.ends_with(".tbz2") || path.ends_with(".tbz") {
        Kind::TarBz2
    } else if path.ends_with(".tar") {
        Kind::Tar
    } else if path.ends_with(".zip") {
        Kind::Zip
    } else {
        Kind::Raw
    }
}

/// Unpacks `file` (of `kind`) into the folder `into` (made); a raw program is copied there as
/// `program` (the entry's `cmd`), executable.
pub fn unpack(file: &Path, kind: Kind, into: &Path, program: &Path) -> Result<(), String> {
    let words = |e: &dyn std::fmt::Display| format!("could not unpack {}: {e}", file.display());
    std::fs::create_dir_all(into).map_err(|e| words(&e))?;
    let open = || File::open(file).map(BufReader::new).map_err(|e| words(&e));
    match kind {
        Kind::TarGz => untar(flate2::read::GzDecoder::new(open()?), into).map_err(|e| words(&e)),
        Kind::TarBz2 => untar(bzip2::read::BzDecoder::new(open()?), into).map_err(|e| words(&e)),
        Kind::Tar => untar(open()?, into).map_err(|e| words(&e)),
        Kind::Zip => unzip(open()?, into).map_err(|e| words(&e)),
        Kind::Raw => {
            let target = into.join(program.file_name().ok_or_else(|| words(&"the entry names no program"))?);
            std::fs::copy(file, &target).map_err(|e| words(&e))?;
            make_executable(&target).map_err(|e| words(&e))
        }
    }
}

fn untar(reader: impl Read, into: &Path) -> std::io::Result<()> {
    let mut archive = tar::Archive::new(reader);
    archive.set_preserve_permissions(true);
    archive.set_overwrite(true);
    archive.unpack(into)
}

fn unzip(reader: impl Read + Seek, into: &Path) -> zip::result::ZipResult<()> {
    zip::ZipArchive::new(reader)?.extract(into)
}

/// Adds the execute bits where read bits are (a program unpacked without them).
pub fn make_executable(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)?.permissions().mode();
        let with_x = mode | ((mode & 0o444) >> 2);
        if with_x != mode {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(with_x))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_is_read_from_the_file_name() {
        assert_eq!(kind_of("https://h/a/codex-acp-0.9.2-x86_64.tar.gz"), Kind::TarGz);
        assert_eq!(kind_of("https://h/a.TGZ?x=1"), Kind::TarGz);
        assert_eq!(kind_of("https://h/vibe-acp-linux-x86_64-2.0.2.zip"), Kind::Zip);
        assert_eq!(kind_of("https://h/a.tar.bz2#frag"), Kind::TarBz2);
        assert_eq!(kind_of("https://h/a.tar"), Kind::Tar);
        assert_eq!(kind_of("https://h/kimi-linux"), Kind::Raw);
    }

    /// Each kind unpacks; a tar entry aiming outside the folder writes nothing there (the `tar`
    /// crate skips it).
    #[test]
    fn archives_unpack_and_an_entry_outside_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let tar_bytes = |name: &str| {
            let mut b = tar::Builder::new(Vec::new());
            let mut h = tar::Header::new_gnu();
            let body = b"#!/bin/sh\necho hi\n";
            h.set_size(body.len() as u64);
            h.set_mode(0o755);
            b.append_data(&mut h, name, &body[..]).unwrap();
            b.into_inner().unwrap()
        };
        let gz = {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&tar_bytes("bin/agent")).unwrap();
            e.finish().unwrap()
        };
        let file = dir.path().join("a.tar.gz");
        std::fs::write(&file, gz).unwrap();
        let into = dir.path().join("gz");
        unpack(&file, Kind::TarGz, &into, Path::new("./bin/agent")).unwrap();
        assert_eq!(std::fs::read_to_string(into.join("bin/agent")).unwrap(), "#!/bin/sh\necho hi\n");

        let zip_file = dir.path().join("a.zip");
        {
            use std::io::Write;
            let mut z = zip::ZipWriter::new(File::create(&zip_file).unwrap());
            let options = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
            z.start_file("agent", options).unwrap();
            z.write_all(b"zip body").unwrap();
            z.finish().unwrap();
        }
        let into = dir.path().join("zip");
        unpack(&zip_file, Kind::Zip, &into, Path::new("./agent")).unwrap();
        assert_eq!(std::fs::read(into.join("agent")).unwrap(), b"zip body");

        let raw = dir.path().join("download");
        std::fs::write(&raw, b"raw").unwrap();
        let into = dir.path().join("raw");
        unpack(&raw, Kind::Raw, &into, Path::new("./kimi")).unwrap();
        assert_eq!(std::fs::read(into.join("kimi")).unwrap(), b"raw");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_ne!(std::fs::metadata(into.join("kimi")).unwrap().permissions().mode() & 0o100, 0);
        }

        // A name with `..` written raw into the header (the builder refuses to make one).
        let mut evil = tar_bytes("aaaaaaaaaaaaaaaaa");
        evil[..17].copy_from_slice(b"../../outside.txt");
        let mut header = tar::Header::from_byte_slice(&evil[..512]).clone();
        header.set_cksum();
        evil[..512].copy_from_slice(header.as_bytes());
        let file = dir.path().join("evil.tar");
        std::fs::write(&file, evil).unwrap();
        let into = dir.path().join("deep/evil");
        let result = unpack(&file, Kind::Tar, &into, Path::new("./x"));
        assert!(!dir.path().join("outside.txt").exists(), "{result:?}");
        assert!(!into.join("x").exists());
    }
}
