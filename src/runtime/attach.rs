//! A file on this computer made into an attachment (`prompt --attach`, a file dropped on the
//! window or picked): an image by its bytes, else a file or folder of the agent's workspace.
//! Runs off the UI thread (it reads the file).

use std::path::Path;

use crate::model::content::{Image, MAX_IMAGE, human_size, sniff};
use crate::model::rel_path::RelPath;
use crate::protocol::attachments::Attachment;

/// `path` as an attachment for an agent working in `workspace` (on this computer), or why not.
pub fn from_file(path: &Path, workspace: &Path) -> Result<Attachment, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if meta.is_file() && looks_like_image(path)? {
        if meta.len() as usize > MAX_IMAGE {
            return Err(format!(
                "{shown}: the image is too large ({}; at most {})",
                human_size(meta.len() as usize),
                human_size(MAX_IMAGE)
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
        let name = path.file_name().map_or_else(|| shown.to_string(), |n| n.to_string_lossy().into_owned());
        return Image::from_file_bytes(&name, bytes)
            .map(Attachment::Image)
            .ok_or_else(|| format!("{shown}: not an image Sidekicks can send (PNG, JPEG, GIF, WebP)"));
    }
    let outside = || {
        format!(
            "{shown} is neither an image (PNG, JPEG, GIF, WebP) nor a file of the agent's workspace ({})",
            workspace.display()
        )
    };
    let full = path.canonicalize().map_err(|e| format!("{shown}: {e}"))?;
    let root = workspace.canonicalize().map_err(|e| format!("{}: {e}", workspace.display()))?;
    let rel = full.strip_prefix(&root).map_err(|_| outside())?;
    let rel = RelPath::new(&rel.to_string_lossy()).map_err(|_| outside())?;
    Ok(Attachment::Mention { path: rel, dir: meta.is_dir() })
}

/// True when the file's first bytes are those of an image.
fn looks_like_image(path: &Path) -> Result<bool, String> {
    use std::io::Read;
    let mut head = [0u8; 16];
    let mut file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let n = file.read(&mut head).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(sniff(&head[..n]).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_files_of_the_workspace_and_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::write(ws.join("src/a.rs"), "fn main() {}").unwrap();
        std::fs::write(dir.path().join("shot.png"), [0x89, b'P', b'N', b'G', 13, 10, 26, 10]).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let image = from_file(&dir.path().join("shot.png"), &ws).unwrap();
        assert!(
            matches!(image, Attachment::Image(i) if i.mime == "image/png" && i.name.as_deref() == Some("shot.png"))
        );
        let file = from_file(&ws.join("src/a.rs"), &ws).unwrap();
        assert_eq!(file, Attachment::Mention { path: RelPath::new("src/a.rs").unwrap(), dir: false });
        let folder = from_file(&ws.join("src"), &ws).unwrap();
        assert_eq!(folder, Attachment::Mention { path: RelPath::new("src").unwrap(), dir: true });
        let error = from_file(&dir.path().join("notes.txt"), &ws).unwrap_err();
        assert!(error.contains("neither an image"), "{error}");
        assert!(from_file(&dir.path().join("missing.png"), &ws).unwrap_err().contains("missing.png"));
    }
}

/// Reads what `source` names for an agent working in `workspace` (blocking work on tokio's
/// blocking pool; the dialog asynchronously): one result per file, none when the dialog was
/// cancelled.
pub async fn read(
    source: crate::protocol::attachments::AttachSource,
    workspace: std::path::PathBuf,
) -> Vec<Result<Attachment, String>> {
    use crate::protocol::attachments::AttachSource;
    let files = match source {
        AttachSource::Files(files) => files,
        AttachSource::Pick => {
            let picked = rfd::AsyncFileDialog::new()
                .set_title("Attach files")
                .set_directory(&workspace)
                .pick_files()
                .await
                .unwrap_or_default();
            picked.into_iter().map(|f| f.path().to_path_buf()).collect()
        }
        AttachSource::Pixels { width, height, rgba } => {
            let encoded = tokio::task::spawn_blocking(move || from_pixels(width, height, &rgba)).await;
            return vec![encoded.unwrap_or_else(|e| Err(e.to_string()))];
        }
    };
    tokio::task::spawn_blocking(move || files.iter().map(|f| from_file(f, &workspace)).collect())
        .await
        .unwrap_or_else(|e| vec![Err(e.to_string())])
}

/// Pasted pixels (RGBA, alpha premultiplied) as a PNG image.
pub fn from_pixels(width: u32, height: u32, rgba: &[u8]) -> Result<Attachment, String> {
    if rgba.len() != width as usize * height as usize * 4 {
        return Err(format!("the pasted image has {} bytes for {width}×{height} pixels", rgba.len()));
    }
    let straight: Vec<u8> = rgba
        .chunks_exact(4)
        .flat_map(|p| {
            let a = p[3];
            let un = |c: u8| if a == 0 { 0 } else { ((c as u32 * 255 + a as u32 / 2) / a as u32).min(255) as u8 };
            [un(p[0]), un(p[1]), un(p[2]), a]
        })
        .collect();
    let image = image::RgbaImage::from_raw(width, height, straight).ok_or("the pasted image is damaged")?;
    let mut png = std::io::Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png).map_err(|e| format!("the pasted image cannot be kept: {e}"))?;
    let bytes = png.into_inner();
    if bytes.len() > MAX_IMAGE {
        return Err(format!(
            "the pasted image is too large ({}; at most {})",
            human_size(bytes.len()),
            human_size(MAX_IMAGE)
        ));
    }
    Image::from_file_bytes("pasted.png", bytes)
        .map(Attachment::Image)
        .ok_or_else(|| "the pasted image is damaged".into())
}

#[cfg(test)]
mod pixel_tests {
    use super::*;

    #[test]
    fn pasted_pixels_become_a_png() {
        let rgba = [255, 0, 0, 255, 0, 0, 0, 0, 0, 64, 0, 128, 10, 10, 10, 255];
        let Attachment::Image(image) = from_pixels(2, 2, &rgba).unwrap() else { panic!("not an image") };
        assert_eq!(image.mime, "image/png");
        let back = image::load_from_memory(image.data.bytes()).unwrap().to_rgba8();
        assert_eq!(back.get_pixel(0, 0).0, [255, 0, 0, 255]);
        assert_eq!(back.get_pixel(0, 1).0, [0, 128, 0, 128], "alpha unpremultiplied");
        assert!(from_pixels(3, 3, &rgba).is_err());
    }
}
