//! Content blocks both ways: a prompt's text and attachments into ACP blocks (images; files and
//! folders of the workspace as links, or with their text when the agent takes embedded context),
//! and the blocks of an agent's answer into model updates.

use agent_client_protocol::v1::schema::{
    ContentBlock, EmbeddedResource, EmbeddedResourceResource, ImageContent, ResourceLink, TextContent,
    TextResourceContents,
};

use crate::model::content::{Image, Resource};
use crate::model::conversation::{Part, Update};
use crate::protocol::attachments::{Attachment, PromptAbilities};
use crate::runtime::agent_fs::AgentFs;

/// The most text of one file sent along with a prompt; a larger file goes as a link.
pub const MAX_EMBEDDED: usize = 256 * 1024;

pub use crate::model::content::file_uri;

/// How the attachments show in the person's message (`root`: the workspace as the agent sees it).
pub fn shown(attachments: &[Attachment], root: &std::path::Path) -> Vec<Part> {
    attachments
        .iter()
        .map(|a| match a {
            Attachment::Image(image) => Part::Image(image.clone()),
            Attachment::Mention { path, dir } => Part::Resource(Resource {
                uri: file_uri(&if path.is_root() { root.to_path_buf() } else { root.join(path.as_str()) }),
                name: path.as_str().to_string(),
                mime: None,
                text: None,
                dir: *dir,
            }),
        })
        .collect()
}

/// The prompt's blocks: the text, then the attachments. Refused (in words) when it carries an
/// image the agent does not take.
pub async fn prompt_blocks(
    agent: &str,
    text: String,
    attachments: Vec<Attachment>,
    fs: &AgentFs,
    abilities: PromptAbilities,
) -> Result<Vec<ContentBlock>, String> {
    let mut blocks = Vec::with_capacity(1 + attachments.len());
    if !text.is_empty() || attachments.is_empty() {
        blocks.push(ContentBlock::Text(TextContent::new(text)));
    }
    for attachment in attachments {
        match attachment {
            Attachment::Image(image) if !abilities.image => {
                return Err(format!("{agent} does not take images ({} not sent)", image.describe()));
            }
            Attachment::Image(image) => {
                let mut content = ImageContent::new(image.base64(), image.mime.clone());
                content.uri = image.name.clone();
                blocks.push(ContentBlock::Image(content));
            }
            Attachment::Mention { path, dir } => {
                let uri = file_uri(&fs.agent_path(&path));
                let text =
                    if dir || !abilities.embedded { None } else { fs.text_for_prompt(&path, MAX_EMBEDDED).await };
                blocks.push(match text {
                    Some(text) => ContentBlock::Resource(EmbeddedResource::new(
                        EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(text, uri)),
                    )),
                    None => ContentBlock::ResourceLink(ResourceLink::new(path.as_str(), uri)),
                });
            }
        }
    }
    Ok(blocks)
}

/// The update for one block of the agent's answer (`None`: a kind not shown, such as audio).
pub fn incoming(block: ContentBlock, thought: bool) -> Option<Update> {
    match block {
        ContentBlock::Text(t) if thought => Some(Update::Thought(t.text)),
        ContentBlock::Text(t) => Some(Update::Text(t.text)),
        ContentBlock::Image(i) => match Image::from_base64(i.mime_type, &i.data, i.uri) {
            Ok(image) => Some(Update::Image(image)),
            Err(e) => {
                tracing::warn!("an image of the agent is not shown: {e}");
                Some(Update::Text(format!("\n[an image that cannot be shown: {e}]\n")))
            }
        },
        ContentBlock::ResourceLink(link) => Some(Update::Resource(Resource {
            name: link.title.unwrap_or(link.name),
            uri: link.uri,
            mime: link.mime_type,
            text: None,
            dir: false,
        })),
        ContentBlock::Resource(embedded) => match embedded.resource {
            EmbeddedResourceResource::TextResourceContents(t) => Some(Update::Resource(Resource {
                name: t.uri.rsplit('/').next().unwrap_or(&t.uri).to_string(),
                uri: t.uri,
                mime: t.mime_type,
                text: Some(t.text),
                dir: false,
            })),
            EmbeddedResourceResource::BlobResourceContents(b) => Some(Update::Resource(Resource {
                name: b.uri.rsplit('/').next().unwrap_or(&b.uri).to_string(),
                uri: b.uri,
                mime: b.mime_type,
                text: None,
                dir: false,
            })),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_escape_what_a_uri_reserves() {
        assert_eq!(file_uri(std::path::Path::new("/w/my notes#1.md")), "file:///w/my%20notes%231.md");
    }

    #[test]
    fn answers_become_updates() {
        let png = Image::from_file_bytes("x.png", vec![0x89, b'P', b'N', b'G', 1, 2]).unwrap();
        let block = ContentBlock::Image(ImageContent::new(png.base64(), "image/png"));
        assert_eq!(incoming(block, false), Some(Update::Image(Image { name: None, ..png })));
        let link = ContentBlock::ResourceLink(ResourceLink::new("a.rs", "file:///w/a.rs"));
        assert!(matches!(incoming(link, false), Some(Update::Resource(r)) if r.name == "a.rs" && r.text.is_none()));
        let bad = ContentBlock::Image(ImageContent::new("%%%", "image/png"));
        assert!(matches!(incoming(bad, false), Some(Update::Text(t)) if t.contains("cannot be shown")));
    }
}
