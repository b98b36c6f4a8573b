//! The demo agent's images and resources: it takes images and files' text in prompts (unless
//! `--text-only`) and says what it received; the `picture` scenario answers with an image it
//! draws and a link to a file of its folder.

use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource};

/// What the prompt carries besides text, in words (`None`: only text).
pub fn received(blocks: &[ContentBlock]) -> Option<String> {
    let mut seen = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Image(i) => seen.push(image_words(&i.mime_type, &i.data)),
            ContentBlock::ResourceLink(l) => seen.push(format!("a link to `{}` ({})", l.name, l.uri)),
            ContentBlock::Resource(r) => match &r.resource {
                EmbeddedResourceResource::TextResourceContents(t) => {
                    seen.push(format!("the text of `{}` ({} lines)", t.uri, t.text.lines().count()));
                }
                EmbeddedResourceResource::BlobResourceContents(b) => seen.push(format!("the bytes of `{}`", b.uri)),
                _ => {}
            },
            _ => {}
        }
    }
    (!seen.is_empty()).then(|| format!("I received {}.\n\n", seen.join("; ")))
}

/// An image's type, size in pixels and bytes, or why it does not decode.
fn image_words(mime: &str, data: &str) -> String {
    use base64::Engine;
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
        return format!("an image ({mime}) whose data is not base64");
    };
    let size = image::ImageReader::new(std::io::Cursor::new(&bytes))
        .with_guessed_format()
        .ok()
        .and_then(|r| r.into_dimensions().ok());
    match size {
        Some((w, h)) => format!("an image ({mime}, {w}×{h} pixels, {} bytes)", bytes.len()),
        None => format!("an image ({mime}, {} bytes) that does not decode", bytes.len()),
    }
}

/// A 64×64 PNG: a gradient with a diagonal, drawn here.
pub fn picture() -> Vec<u8> {
    let image = image::RgbaImage::from_fn(64, 64, |x, y| {
        if x == y || x + y == 63 {
            image::Rgba([255, 255, 255, 255])
        } else {
            image::Rgba([x as u8 * 4, y as u8 * 4, 160, 255])
        }
    });
    let mut png = std::io::Cursor::new(Vec::new());
    image.write_to(&mut png, image::ImageFormat::Png).expect("a PNG in memory");
    png.into_inner()
}
