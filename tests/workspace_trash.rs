//! Deleting on this computer goes to the system trash, where the file can be restored. (Its own test
//! binary: it points the trash at a temporary data folder through the environment.)

use std::sync::Arc;

use sidekicks::model::rel_path::RelPath;
use sidekicks::runtime::workspace::{LocalWorkspace, Workspace};

#[tokio::test]
async fn a_deleted_file_is_in_the_trash_and_restorable() {
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: the only test of this binary, before any thread reads the environment.
    unsafe { std::env::set_var("XDG_DATA_HOME", dir.path().join("data")) };
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let ws: Arc<dyn Workspace> = Arc::new(LocalWorkspace::new(&root));
    let path = RelPath::new("notes.md").unwrap();
    ws.write(&path, b"keep me".to_vec(), None).await.unwrap();
    ws.remove(&path).await.unwrap();
    assert!(!root.join("notes.md").exists());

    let items = trash::os_limited::list().unwrap();
    let item = items.into_iter().find(|i| i.name == "notes.md").expect("in the trash");
    assert_eq!(item.original_parent, std::fs::canonicalize(&root).unwrap());
    trash::os_limited::restore_all([item]).unwrap();
    assert_eq!(std::fs::read_to_string(root.join("notes.md")).unwrap(), "keep me");
}
