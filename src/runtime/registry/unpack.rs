//! Unpacking a downloaded agent: `.tar.gz`/`.tgz`, `.tar.bz2`/`.tbz2`, `.tar`, `.zip`, or the program
//! itself (any other name). Entries that would land outside the folder (`..`, absolute paths,
//! links out) are refused by the `tar` and `zip` crates' own checks. An archive is input, not
//! instructions (issue 45): what it unpacks to is bounded ([`MAX_UNPACKED`]: a small archive can
//! expand until the disk is full), and modes are masked as tar's `--no-same-permissions` would
//! (no set-uid, set-gid or sticky bit, nothing writable by others).

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;

/// The most an archive may unpack to, in all.
pub const MAX_UNPACKED: u64 = 2 << 30;

/// A reader that fails once more than its limit has been read through it.
struct Bounded<R> {
    inner: R,
    left: u64,
    max: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| too_big(self.max))?;
        Ok(n)
    }
}

fn too_big(max: u64) -> std::io::Error {
    std::io::Error::other(format!("it unpacks to more than {} MiB, more than any agent needs", max >> 20))
}

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
    unpack_at_most(file, kind, into, program, MAX_UNPACKED)
}

/// [`unpack`] to at most `max` bytes.
fn unpack_at_most(file: &Path, kind: Kind, into: &Path, program: &Path, max: u64) -> Result<(), String> {
    // The innermost cause (the `tar` crate says only which entry failed).
    let words = |e: &dyn std::error::Error| {
        let mut cause: &dyn std::error::Error = e;
        while let Some(inner) = cause.source() {
            cause = inner;
        }
        format!("could not unpack {}: {cause}", file.display())
    };
    let bounded = |inner: Box<dyn Read>| Bounded { inner, left: max, max };
    std::fs::create_dir_all(into).map_err(|e| words(&e))?;
    let open = || File::open(file).map(BufReader::new).map_err(|e| words(&e));
    match kind {
        Kind::TarGz => untar(bounded(Box::new(flate2::read::GzDecoder::new(open()?))), into).map_err(|e| words(&e))?,
        Kind::TarBz2 => untar(bounded(Box::new(bzip2::read::BzDecoder::new(open()?))), into).map_err(|e| words(&e))?,
        Kind::Tar => untar(bounded(Box::new(open()?)), into).map_err(|e| words(&e))?,
        Kind::Zip => unzip(open()?, into, max).map_err(|e| words(&e))?,
        Kind::Raw => {
            let none = std::io::Error::other("the entry names no program");
            let target = into.join(program.file_name().ok_or_else(|| words(&none))?);
            std::fs::copy(file, &target).map_err(|e| words(&e))?;
            make_executable(&target).map_err(|e| words(&e))?;
        }
    }
    mask_modes(into).map_err(|e| words(&e))
}

/// Takes the set-uid, set-gid and sticky bits and others' and the group's write bits off
/// everything under `dir` (links are not followed).
fn mask_modes(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = std::fs::symlink_metadata(entry.path())?;
        if meta.file_type().is_symlink() {
            continue;
        }
        let mode = meta.permissions().mode();
        if mode & 0o7022 != 0 {
            std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode & 0o755))?;
        }
        if meta.is_dir() {
            mask_modes(&entry.path())?;
        }
    }
    Ok(())
}

/// True when `program` under `dir` is a file of `dir`: neither it nor a folder above it is a link
/// leading out (an archive's program linked to `/home/me/.bashrc` would be made executable and run).
pub fn stays_inside(dir: &Path, program: &Path) -> bool {
    let (Ok(root), Ok(real)) = (dir.canonicalize(), dir.join(program).canonicalize()) else { return false };
    real.starts_with(&root) && real.is_file()
}

fn untar(reader: impl Read, into: &Path) -> std::io::Result<()> {
    let mut archive = tar::Archive::new(reader);
    archive.set_preserve_permissions(true);
    archive.set_overwrite(true);
    archive.unpack(into)
}

fn unzip(reader: impl Read + Seek, into: &Path, max: u64) -> zip::result::ZipResult<()> {
    let mut archive = zip::ZipArchive::new(reader)?;
    // What the entries say they hold, first (a zip says its sizes); then each is read through
    // the bound, should one say less than it holds.
    let said: u64 = (0..archive.len()).filter_map(|i| archive.by_index_raw(i).ok().map(|f| f.size())).sum();
    if said > max {
        return Err(zip::result::ZipError::Io(too_big(max)));
    }
    let mut left = max;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i)?;
        let Some(name) = entry.enclosed_name() else { continue };
        let target = into.join(name);
        if entry.is_dir() {
            std::fs::create_dir_all(&target)?;
            continue;
        }
        if entry.is_symlink() {
            // A link's target is its content; one that leads out is refused by `stays_inside`.
            let mut to = String::new();
            entry.read_to_string(&mut to)?;
            if let Some(dir) = target.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::os::unix::fs::symlink(to, &target)?;
            continue;
        }
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mode = entry.unix_mode();
        let mut out = File::create(&target)?;
        let copied = std::io::copy(&mut Bounded { inner: &mut entry, left, max }, &mut out)?;
        left -= copied;
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode & 0o777))?;
        }
    }
    Ok(())
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

    fn tar_of(entries: &[(&str, u32, &[u8])]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, mode, body) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_size(body.len() as u64);
            h.set_mode(*mode);
            b.append_data(&mut h, name, *body).unwrap();
        }
        b.into_inner().unwrap()
    }

    /// Modes are masked (issue 45): a set-uid program, a world-writable one.
    #[test]
    fn modes_are_masked() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.tar");
        std::fs::write(&file, tar_of(&[("suid", 0o6777, b"x"), ("bin/open", 0o777, b"y")])).unwrap();
        let into = dir.path().join("out");
        unpack(&file, Kind::Tar, &into, Path::new("suid")).unwrap();
        let mode = |p: &str| std::fs::metadata(into.join(p)).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode("suid"), 0o755);
        assert_eq!(mode("bin/open"), 0o755);
    }

    /// A 5 MB archive that expands past the bound stops with words, not a full disk.
    #[test]
    fn an_archive_that_expands_past_the_bound_is_refused() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bomb.tar.gz");
        {
            // A tar of one file of 65 MiB of zeros, compressed as it is written (the bound is
            // 64 MiB here, 2 GiB for real).
            let gz = flate2::write::GzEncoder::new(File::create(&file).unwrap(), flate2::Compression::fast());
            let mut b = tar::Builder::new(gz);
            let mut h = tar::Header::new_gnu();
            let size = 65 << 20;
            h.set_size(size);
            h.set_mode(0o755);
            h.set_path("agent").unwrap();
            h.set_cksum();
            b.append(&h, std::io::repeat(0).take(size)).unwrap();
            b.into_inner().unwrap().finish().unwrap().flush().unwrap();
        }
        assert!(std::fs::metadata(&file).unwrap().len() < 1 << 20);
        let why =
            unpack_at_most(&file, Kind::TarGz, &dir.path().join("out"), Path::new("agent"), 64 << 20).unwrap_err();
        assert!(why.contains("more than 64 MiB"), "{why}");
    }

    /// The program a link to a file outside: refused, and the outside file untouched.
    #[test]
    fn a_program_that_links_out_is_not_inside() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.sh");
        std::fs::write(&outside, "keep").unwrap();
        let into = dir.path().join("out");
        std::fs::create_dir(&into).unwrap();
        std::os::unix::fs::symlink(&outside, into.join("agent")).unwrap();
        std::fs::write(into.join("real"), "x").unwrap();
        assert!(!stays_inside(&into, Path::new("agent")));
        assert!(stays_inside(&into, Path::new("real")));
    }
}
