//! The Files page of an agent's workspace, as the window knows it: the folders read, the ones open,
//! the open file and the ones left with unsaved edits, what was deleted last (for Undo). Workspace
//! results fold in here ([`FilesState::apply`]); what the page asks for comes in as
//! [`FilesRequest`]s and goes out as commands ([`FilesState::request`]). A change on disk marks
//! what is shown as due to be read again, read on the page's next request.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use crate::model::rel_path::RelPath;
use crate::protocol::workspace::{Entry, Version, WorkspaceError, WorkspaceOp};
use crate::protocol::{Command, WorkspaceCommand, WorkspaceEvent};

/// Largest file opened in the editor.
pub const MAX_OPEN: u64 = 1024 * 1024;

/// What the editor holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileState {
    /// Being read.
    Loading,
    /// Text, editable.
    Text,
    /// Not text (NUL bytes or not UTF-8).
    Binary,
    /// Larger than `MAX_OPEN`.
    TooLarge(u64),
    /// It could not be read (why; put into words when drawn).
    Failed(WorkspaceError),
}

/// The file open in a workspace's Files page.
#[derive(Clone, Debug)]
pub struct OpenFile {
    /// Its path.
    pub path: RelPath,
    /// The text being edited.
    pub text: String,
    /// The text and version last read or saved.
    pub base: Option<(String, Version)>,
    /// What it is.
    pub state: FileState,
    /// Their version, when it changed on disk under unsaved edits.
    pub conflict: Option<(String, Version)>,
    /// A save is in flight.
    pub saving: bool,
    /// The last save failed (why).
    pub save_error: Option<WorkspaceError>,
    /// The last save succeeded (said beside Save until the text changes again).
    pub saved: bool,
}

impl OpenFile {
    /// A file being opened.
    pub fn loading(path: RelPath) -> Self {
        Self {
            path,
            text: String::new(),
            base: None,
            state: FileState::Loading,
            conflict: None,
            saving: false,
            save_error: None,
            saved: false,
        }
    }

    /// True when the text differs from the file.
    pub fn is_dirty(&self) -> bool {
        self.state == FileState::Text && self.base.as_ref().is_some_and(|(t, _)| *t != self.text)
    }

    /// The file's content arrived (first read, or a re-read after a change on disk).
    pub fn loaded(&mut self, bytes: Vec<u8>, version: Version) {
        let text = match String::from_utf8(bytes) {
            Ok(t) if !t.contains('\0') => t,
            _ => {
                self.state = FileState::Binary;
                return;
            }
        };
        if self.base.as_ref().is_some_and(|(_, v)| *v == version) {
            return;
        }
        if self.is_dirty() && self.base.as_ref().is_some_and(|(t, _)| *t == text) {
            // The same text under another version (the file was renamed): nothing to ask.
            self.base = Some((text, version));
        } else if self.is_dirty() {
            // Changed on disk under unsaved edits: ask, never overwrite.
            self.conflict = Some((text, version));
        } else {
            self.text = text.clone();
            self.base = Some((text, version));
            self.state = FileState::Text;
        }
    }
}

/// What the Files page asks for.
#[derive(Clone, Debug)]
pub enum FilesRequest {
    /// The page is drawn over `root` (where the agent works now: its team copy, or back): what is
    /// due is read (everything, the first time or when the root moved).
    Show {
        /// The workspace's folder.
        root: PathBuf,
    },
    /// Open a folder of the tree (it is read).
    Expand(RelPath),
    /// Close a folder of the tree.
    Collapse(RelPath),
    /// Open a file of `size` bytes in the editor.
    Open {
        /// The file.
        path: RelPath,
        /// Its size (a file larger than `MAX_OPEN` is not read).
        size: u64,
    },
    /// Save the open file's text over `expected`.
    Save {
        /// The text.
        text: String,
        /// The version it was edited from.
        expected: Version,
    },
    /// An operation on the workspace (new file or folder, rename, delete).
    Op(WorkspaceOp),
    /// Put back what was deleted last (from the trash).
    UndoDelete,
    /// What the page asked for could not be said (a name that is not a path): shown as the error.
    Failed(WorkspaceError),
}

/// The Files page of one agent's workspace.
#[derive(Clone, Debug, Default)]
pub struct FilesState {
    /// The folders read, by path.
    pub dirs: BTreeMap<RelPath, Result<Vec<Entry>, WorkspaceError>>,
    /// The folders open in the tree.
    pub expanded: BTreeSet<RelPath>,
    /// The open file.
    pub file: Option<OpenFile>,
    /// Files left with unsaved edits for another one, by path: back as they were when reopened.
    unsaved: HashMap<RelPath, OpenFile>,
    /// The last operation's error.
    pub error: Option<WorkspaceError>,
    /// What was deleted last (to the trash), for Undo.
    pub removed: Option<RelPath>,
    /// The folder the tree shows (`None`: not shown yet).
    root: Option<PathBuf>,
    /// A new file asked for: opened in the editor once it is made.
    created: Option<RelPath>,
    /// A new file made, to open.
    open_next: Option<RelPath>,
    /// A rename asked (from, to): the open file and the ones left unsaved follow it once done,
    /// their edits with them (a rename lost them).
    moving: Option<(RelPath, RelPath)>,
    /// The open file a delete closed: Undo opens it again.
    closed: Option<RelPath>,
    /// The tree is due to be read again.
    stale: bool,
    /// The open file is due to be read again.
    reread: bool,
}

impl FilesState {
    /// Folds a workspace result in. `local`: the workspace is on this computer (a removal goes to
    /// the trash and can be undone).
    pub fn apply(&mut self, local: bool, event: WorkspaceEvent) {
        match event {
            // The composer's and the terminals' (see `AppState::apply`).
            WorkspaceEvent::Paths { .. } | WorkspaceEvent::TerminalOpened { .. } => {}
            WorkspaceEvent::Listed { dir, result } => {
                self.dirs.insert(dir, result);
            }
            WorkspaceEvent::Read { path, result } => {
                if let Some(file) = self.file.as_mut().filter(|f| f.path == path) {
                    match result {
                        Ok((bytes, version)) => file.loaded(bytes, version),
                        Err(e) => file.state = FileState::Failed(e),
                    }
                }
            }
            WorkspaceEvent::Written { path, result } => {
                if let Some(file) = self.file.as_mut().filter(|f| f.path == path) {
                    file.saving = false;
                    match result {
                        Ok(version) => {
                            file.base = Some((file.text.clone(), version));
                            file.save_error = None;
                            file.saved = true;
                        }
                        // Someone wrote meanwhile: fetch theirs, the conflict bar asks.
                        Err(WorkspaceError::Conflict { .. }) => self.reread = true,
                        Err(e) => file.save_error = Some(e),
                    }
                }
                self.stale = true;
            }
            WorkspaceEvent::Done { result } => {
                let made = self.created.take();
                let moved = self.moving.take();
                if result.is_ok() {
                    self.open_next = made;
                    if let Some((from, to)) = moved {
                        self.follow_rename(&from, &to);
                    }
                }
                self.error = result.err();
                self.stale = true;
            }
            WorkspaceEvent::Removed { path, result } => {
                if result.is_ok() {
                    self.unsaved.retain(|p, _| !p.is_within(&path));
                    if self.file.as_ref().is_some_and(|f| f.path.is_within(&path)) {
                        // Not shown as "does not exist": the editor closes, Undo opens it again.
                        self.closed = self.file.take().map(|f| f.path);
                    }
                }
                // On this computer it is in the trash: offered back until the next delete.
                self.removed = result.is_ok().then_some(path).filter(|_| local);
                self.error = result.err();
                self.stale = true;
            }
            WorkspaceEvent::Changed => self.changed(),
        }
    }

    /// The workspace changed: the tree and the open text file are read again.
    fn changed(&mut self) {
        self.stale = true;
        self.reread |= self.file.as_ref().is_some_and(|f| f.state == FileState::Text);
    }

    /// Takes what the page asks for; returns the commands for `agent`'s workspace.
    pub fn request(&mut self, agent: &str, request: FilesRequest) -> Vec<Command> {
        let mut ops = Vec::new();
        match request {
            FilesRequest::Show { root } => {
                if self.root.as_ref() != Some(&root) {
                    if self.root.is_some() {
                        self.dirs.clear();
                        self.changed();
                    }
                    self.root = Some(root);
                    self.stale = true;
                }
            }
            FilesRequest::Expand(dir) => {
                self.expanded.insert(dir.clone());
                ops.push(WorkspaceOp::List { dir });
            }
            FilesRequest::Collapse(dir) => {
                self.expanded.remove(&dir);
            }
            FilesRequest::Open { path, size } => ops.extend(self.open(path, size)),
            FilesRequest::Save { text, expected } => {
                if let Some(file) = self.file.as_mut() {
                    file.saving = true;
                    ops.push(WorkspaceOp::Write {
                        path: file.path.clone(),
                        bytes: text.into_bytes(),
                        expected: Some(expected),
                    });
                }
            }
            FilesRequest::Op(op) => {
                match &op {
                    WorkspaceOp::NewFile { path } => self.created = Some(path.clone()),
                    WorkspaceOp::Rename { from, to } => self.moving = Some((from.clone(), to.clone())),
                    _ => {}
                }
                ops.push(op);
            }
            FilesRequest::UndoDelete => {
                if let Some(path) = self.removed.take() {
                    // The file the delete closed comes back into the editor once restored.
                    self.created = self.closed.take().filter(|closed| closed.is_within(&path));
                    ops.push(WorkspaceOp::Restore { path });
                }
            }
            FilesRequest::Failed(e) => self.error = Some(e),
        }
        ops.extend(self.due());
        ops.into_iter().map(|op| Command::Workspace(WorkspaceCommand::Op { agent: agent.to_string(), op })).collect()
    }

    /// What is due to be read again (none before the page was first shown).
    fn due(&mut self) -> Vec<WorkspaceOp> {
        let mut ops = Vec::new();
        if self.root.is_none() {
            return ops;
        }
        if std::mem::take(&mut self.stale) {
            ops.push(WorkspaceOp::List { dir: RelPath::root() });
            ops.extend(self.expanded.iter().map(|dir| WorkspaceOp::List { dir: dir.clone() }));
        }
        if std::mem::take(&mut self.reread)
            && let Some(file) = &self.file
        {
            ops.push(WorkspaceOp::Read { path: file.path.clone() });
        }
        if let Some(path) = self.open_next.take() {
            ops.extend(self.open(path, 0));
        }
        ops
    }

    /// A rename done: the open file and those left unsaved take their new paths, with their edits.
    fn follow_rename(&mut self, from: &RelPath, to: &RelPath) {
        if let Some(file) = self.file.as_mut()
            && let Some(moved) = file.path.moved(from, to)
        {
            file.path = moved;
            self.reread = file.state == FileState::Text;
        }
        let left: Vec<RelPath> = self.unsaved.keys().filter(|p| p.is_within(from)).cloned().collect();
        for path in left {
            if let (Some(mut file), Some(moved)) = (self.unsaved.remove(&path), path.moved(from, to)) {
                file.path = moved.clone();
                self.unsaved.insert(moved, file);
            }
        }
    }

    /// Opens `path` in the editor: the file left with unsaved edits comes back as it was (read
    /// again, so a change on disk meanwhile shows the conflict bar).
    fn open(&mut self, path: RelPath, size: u64) -> Option<WorkspaceOp> {
        if let Some(left) = self.file.take().filter(OpenFile::is_dirty) {
            self.unsaved.insert(left.path.clone(), left);
        }
        if let Some(kept) = self.unsaved.remove(&path) {
            self.file = Some(kept);
            return Some(WorkspaceOp::Read { path });
        }
        let mut file = OpenFile::loading(path.clone());
        let read = if size > MAX_OPEN {
            file.state = FileState::TooLarge(size);
            None
        } else {
            Some(WorkspaceOp::Read { path })
        };
        self.file = Some(file);
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(commands: Vec<Command>) -> Vec<String> {
        commands
            .into_iter()
            .map(|c| match c {
                Command::Workspace(WorkspaceCommand::Op { op, .. }) => format!("{op:?}"),
                other => panic!("not a workspace op: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_change_reads_the_open_folders_and_file_again_once() {
        let mut files = FilesState::default();
        let root = PathBuf::from("/w");
        assert_eq!(ops(files.request("a", FilesRequest::Show { root: root.clone() })).len(), 1);
        let src = RelPath::new("src").unwrap();
        ops(files.request("a", FilesRequest::Expand(src.clone())));
        ops(files.request("a", FilesRequest::Open { path: RelPath::new("a.txt").unwrap(), size: 3 }));
        files.apply(
            true,
            WorkspaceEvent::Read {
                path: RelPath::new("a.txt").unwrap(),
                result: Ok((b"abc".to_vec(), Version("v1".into()))),
            },
        );
        assert!(ops(files.request("a", FilesRequest::Show { root: root.clone() })).is_empty(), "nothing due");
        files.apply(true, WorkspaceEvent::Changed);
        let again = ops(files.request("a", FilesRequest::Show { root: root.clone() }));
        assert_eq!(again.len(), 3, "root, src and the file: {again:?}");
        assert!(again.iter().any(|o| o.contains("Read")), "{again:?}");
        assert!(ops(files.request("a", FilesRequest::Show { root })).is_empty(), "read once");
    }

    #[test]
    fn unsaved_edits_come_back_with_their_file() {
        let mut files = FilesState::default();
        let (a, b) = (RelPath::new("a").unwrap(), RelPath::new("b").unwrap());
        files.request("x", FilesRequest::Open { path: a.clone(), size: 1 });
        files.apply(true, WorkspaceEvent::Read { path: a.clone(), result: Ok((b"1".to_vec(), Version("v1".into()))) });
        files.file.as_mut().unwrap().text = "edited".into();
        files.request("x", FilesRequest::Open { path: b, size: 1 });
        assert_eq!(files.file.as_ref().unwrap().text, "");
        files.request("x", FilesRequest::Open { path: a, size: 1 });
        assert_eq!(files.file.as_ref().unwrap().text, "edited");
    }

    #[test]
    fn the_editor_follows_a_rename_and_a_delete_closes_it_until_undone() {
        let mut files = FilesState::default();
        ops(files.request("x", FilesRequest::Show { root: PathBuf::from("/w") }));
        let (a, b) = (RelPath::new("a.md").unwrap(), RelPath::new("docs/b.md").unwrap());
        files.request("x", FilesRequest::Open { path: a.clone(), size: 1 });
        files.apply(true, WorkspaceEvent::Read { path: a.clone(), result: Ok((b"1".to_vec(), Version("v1".into()))) });
        files.file.as_mut().unwrap().text = "edited".into();
        files.request("x", FilesRequest::Op(WorkspaceOp::Rename { from: a.clone(), to: b.clone() }));
        files.apply(true, WorkspaceEvent::Done { result: Ok(()) });
        let file = files.file.as_ref().unwrap();
        assert_eq!((file.path.clone(), file.text.as_str()), (b.clone(), "edited"), "the edits went with it");
        // Read again under its new name: the same text under another version asks nothing.
        files.apply(true, WorkspaceEvent::Read { path: b.clone(), result: Ok((b"1".to_vec(), Version("v2".into()))) });
        assert!(files.file.as_ref().unwrap().conflict.is_none());
        assert_eq!(files.file.as_ref().unwrap().text, "edited");
        // Deleted: the editor closes (no "does not exist"); Undo opens it again once restored.
        files.apply(true, WorkspaceEvent::Removed { path: b.clone(), result: Ok(()) });
        assert!(files.file.is_none());
        let undo = ops(files.request("x", FilesRequest::UndoDelete));
        assert!(undo.iter().any(|o| o.contains("Restore")), "{undo:?}");
        files.apply(true, WorkspaceEvent::Done { result: Ok(()) });
        let after = ops(files.request("x", FilesRequest::Show { root: PathBuf::from("/w") }));
        assert!(after.iter().any(|o| o.contains("Read") && o.contains("docs/b.md")), "{after:?}");
        assert_eq!(files.file.as_ref().unwrap().path, b);
    }

    #[test]
    fn a_large_file_is_not_read() {
        let mut files = FilesState::default();
        let read = files.request("x", FilesRequest::Open { path: RelPath::new("big").unwrap(), size: MAX_OPEN + 1 });
        assert!(read.is_empty());
        assert_eq!(files.file.unwrap().state, FileState::TooLarge(MAX_OPEN + 1));
    }
}
