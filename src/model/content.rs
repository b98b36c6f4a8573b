//! What a message carries besides text: images and resources (files, folders, links), in the
//! person's prompts and in the agent's answers.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// The largest image sent to an agent or kept from one (bytes): screenshots fit, a photo library
/// does not.
pub const MAX_IMAGE: usize = 20 * 1024 * 1024;

/// An image: its encoded bytes (PNG, JPEG, …) and their type.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Image {
    /// The MIME type (`image/png`).
    pub mime: String,
    /// The encoded bytes (base64 when stored).
    pub data: ImageData,
    /// Where it came from (a file's name), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Image {
    /// An image from the bytes of a file named `name`, if they are an image Sidekicks knows
    /// (PNG, JPEG, GIF, WebP), by their first bytes.
    pub fn from_file_bytes(name: &str, bytes: Vec<u8>) -> Option<Self> {
        let mime = sniff(&bytes)?;
        Some(Self { mime: mime.into(), data: ImageData::new(bytes), name: Some(name.into()) })
    }

    /// The bytes as base64 (what ACP carries).
    pub fn base64(&self) -> String {
        STANDARD.encode(self.data.bytes())
    }

    /// An image from ACP's base64 `data`.
    pub fn from_base64(mime: String, data: &str, name: Option<String>) -> Result<Self, String> {
        let bytes = STANDARD.decode(data.trim()).map_err(|e| format!("the image's data is not base64: {e}"))?;
        if bytes.len() > MAX_IMAGE {
            return Err(format!("the image is too large ({} MB)", bytes.len() / (1024 * 1024)));
        }
        Ok(Self { mime, data: ImageData::new(bytes), name })
    }

    /// A short description: name or type, and size.
    pub fn describe(&self) -> String {
        let size = human_size(self.data.len());
        match &self.name {
            Some(name) => format!("{name} ({size})"),
            None => format!("{} ({size})", self.mime),
        }
    }
}

/// The MIME type of image bytes, from their magic number.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
        [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
        [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some("image/webp"),
        _ => None,
    }
}

/// An image's bytes, shared (a conversation is cloned for the history and the window), and a
/// hash of them that names the image in the window's image cache.
#[derive(Clone, Debug)]
pub struct ImageData {
    bytes: Arc<[u8]>,
    hash: u64,
}

impl ImageData {
    /// Wraps `bytes`.
    pub fn new(bytes: Vec<u8>) -> Self {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut hasher);
        Self { hash: hasher.finish(), bytes: bytes.into() }
    }

    /// The bytes.
    pub fn bytes(&self) -> &Arc<[u8]> {
        &self.bytes
    }

    /// A hash of the bytes.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// How many bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// No bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl PartialEq for ImageData {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.bytes == other.bytes
    }
}

impl Eq for ImageData {}

impl serde::Serialize for ImageData {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(&self.bytes))
    }
}

impl<'de> serde::Deserialize<'de> for ImageData {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text).map(Self::new).map_err(serde::de::Error::custom)
    }
}

/// A file, folder or link: named in a prompt (`@path`), or sent back by the agent.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Resource {
    /// Its URI (`file:///…` for a file of the workspace).
    pub uri: String,
    /// Its name as shown (a path relative to the workspace, or the agent's name for it).
    pub name: String,
    /// Its MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
    /// Its text, when it travelled with the message (embedded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A folder.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dir: bool,
}

/// `bytes` in words (`512 B`, `12.3 KB`, `4.5 MB`).
pub fn human_size(bytes: usize) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// A `file://` URI for `path` (spaces and the few characters a URI reserves are escaped).
pub fn file_uri(path: &std::path::Path) -> String {
    let mut uri = String::from("file://");
    for c in path.to_string_lossy().chars() {
        match c {
            ' ' => uri.push_str("%20"),
            '%' => uri.push_str("%25"),
            '#' => uri.push_str("%23"),
            '?' => uri.push_str("%3F"),
            c => uri.push(c),
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_known_by_their_bytes_and_kept_as_base64() {
        let png = [0x89, b'P', b'N', b'G', 13, 10, 26, 10, 0, 0];
        let image = Image::from_file_bytes("a.png", png.to_vec()).unwrap();
        assert_eq!(image.mime, "image/png");
        assert!(Image::from_file_bytes("a.txt", b"hello".to_vec()).is_none());
        let json = serde_json::to_string(&image).unwrap();
        assert!(json.contains(&image.base64()), "{json}");
        assert_eq!(serde_json::from_str::<Image>(&json).unwrap(), image);
        let back = Image::from_base64("image/png".into(), &image.base64(), None).unwrap();
        assert_eq!(back.data, image.data);
        assert!(Image::from_base64("image/png".into(), "not base64!", None).is_err());
        assert_eq!(image.describe(), "a.png (10 B)");
    }
}
