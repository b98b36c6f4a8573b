//! A repository's object database read in this process (libgit2: loose objects, packs,
//! alternates), for what would otherwise be a `git cat-file` process: the bases' blobs of a change
//! scan and the trees and blobs of a member's checkout. One handle per thread.

use std::path::Path;

use libgit2_sys as raw;

/// What an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Commit,
    Tree,
    Blob,
    Other,
}

/// An open object database.
pub(crate) struct Odb(*mut raw::git_odb);

impl Drop for Odb {
    fn drop(&mut self) {
        // SAFETY: the handle came from `git_odb_open` and is freed once, here.
        unsafe { raw::git_odb_free(self.0) }
    }
}

impl Odb {
    /// The object database in the objects folder `objects`.
    #[cfg(unix)]
    pub fn open(objects: &Path) -> Option<Self> {
        use std::os::unix::ffi::OsStrExt;
        let folder = std::ffi::CString::new(objects.as_os_str().as_bytes()).ok()?;
        raw::init();
        let mut odb = std::ptr::null_mut();
        // SAFETY: `folder` is a NUL-terminated path; on success `odb` is a handle we own.
        (unsafe { raw::git_odb_open(&mut odb, folder.as_ptr()) } == 0).then_some(Odb(odb))
    }

    #[cfg(not(unix))]
    pub fn open(_objects: &Path) -> Option<Self> {
        None
    }

    /// The object `id` (its 20 bytes): its kind and content.
    pub fn read(&self, id: &[u8; 20]) -> Option<(Kind, Vec<u8>)> {
        struct Object(*mut raw::git_odb_object);
        impl Drop for Object {
            fn drop(&mut self) {
                // SAFETY: the object came from `git_odb_read` and is freed once, here.
                unsafe { raw::git_odb_object_free(self.0) }
            }
        }
        // SAFETY: `oid` is a plain 20-byte id; the object's data is copied out before the guard
        // frees it.
        unsafe {
            let mut oid: raw::git_oid = std::mem::zeroed();
            oid.id.copy_from_slice(id);
            let mut object = std::ptr::null_mut();
            if raw::git_odb_read(&mut object, self.0, &oid) != 0 {
                return None;
            }
            let object = Object(object);
            let kind = match raw::git_odb_object_type(object.0) {
                raw::GIT_OBJECT_COMMIT => Kind::Commit,
                raw::GIT_OBJECT_TREE => Kind::Tree,
                raw::GIT_OBJECT_BLOB => Kind::Blob,
                _ => Kind::Other,
            };
            let size = raw::git_odb_object_size(object.0);
            let data = raw::git_odb_object_data(object.0) as *const u8;
            let content = if size == 0 { Vec::new() } else { std::slice::from_raw_parts(data, size).to_vec() };
            Some((kind, content))
        }
    }
}

/// The 20 bytes of the hex id `hex`.
pub(crate) fn id_of(hex: &str) -> Option<[u8; 20]> {
    let hex = hex.as_bytes();
    if hex.len() != 40 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut id = [0u8; 20];
    for (i, byte) in id.iter_mut().enumerate() {
        *byte = digit(hex[2 * i])? << 4 | digit(hex[2 * i + 1])?;
    }
    Some(id)
}

/// The hex spelling of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}
