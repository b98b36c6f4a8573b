//! Teams stored by earlier versions, whose members were the person's own agents moved into the
//! copies: each member becomes an agent of its own made from that agent (ADR 0028). Its copy,
//! base, merges and work are kept; its name becomes `Agent · team`; the person's agent goes back
//! to its own folder (nothing moves it any more) with its own threads.

use super::{MemberCopy, TeamRecord};
use crate::model::member_name::member_name;

/// `record` with its members of earlier versions made members of their own, named unlike
/// `taken` (the names given are added to it); `None` when it has none. A member whose copy
/// cannot be read is left as it is (its page shows why).
pub fn members_of_their_own(mut record: TeamRecord, taken: &mut Vec<String>) -> Option<TeamRecord> {
    let mut changed = false;
    for m in record.members.iter_mut().filter(|m| m.from.is_empty()) {
        let Ok(mut copy) = MemberCopy::load(&m.state) else { continue };
        let old = m.agent.clone();
        let new = member_name(&old, &record.name, taken);
        taken.push(new.clone());
        copy.name = new.clone();
        copy.agent = old.clone();
        if let Err(e) = copy.save() {
            tracing::warn!("cannot make {old} of team {} a member of its own: {e}", record.name);
            continue;
        }
        // The team's last merge can still be undone under the new name.
        let last = m.state.parent().map(|s| s.join(".last-merge").join("member"));
        if let Some(last) = last
            && std::fs::read_to_string(&last).is_ok_and(|who| who == old)
        {
            let _ = std::fs::write(&last, &new);
        }
        tracing::info!("team {}: {old} became the member {new}", record.name);
        m.agent = new;
        m.from = old;
        changed = true;
    }
    changed.then_some(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::teams::{CopyProvider, IsolationProvider, MemberRecord, ProviderKind};

    #[test]
    fn an_old_member_becomes_one_of_its_own_keeping_its_copy_and_undo() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir(&project).unwrap();
        std::fs::write(project.join("a.txt"), "a\n").unwrap();
        let state = dir.path().join("team/.state/Demo");
        let old =
            CopyProvider { clone: false }.create(&project, &dir.path().join("team/Demo"), &state, "1", "Demo").unwrap();
        assert_eq!(old.agent, "", "as earlier versions made it");
        std::fs::create_dir_all(dir.path().join("team/.state/.last-merge")).unwrap();
        std::fs::write(dir.path().join("team/.state/.last-merge/member"), "Demo").unwrap();
        let record = TeamRecord {
            id: "1".into(),
            name: "squad".into(),
            project,
            provider: ProviderKind::Copy,
            members: vec![MemberRecord { agent: "Demo".into(), state: state.clone(), from: String::new() }],
            lead: None,
        };
        let mut taken = vec!["Demo".to_string()];
        let migrated = members_of_their_own(record, &mut taken).unwrap();
        assert_eq!(migrated.members[0].agent, "Demo · squad");
        assert_eq!(migrated.members[0].from, "Demo");
        let copy = MemberCopy::load(&state).unwrap();
        assert_eq!((copy.name.as_str(), copy.agent.as_str()), ("Demo · squad", "Demo"));
        assert_eq!(copy.copy, old.copy, "the same copy");
        assert_eq!(std::fs::read_to_string(dir.path().join("team/.state/.last-merge/member")).unwrap(), "Demo · squad");
        assert!(taken.contains(&"Demo · squad".to_string()));
        assert_eq!(members_of_their_own(migrated, &mut taken), None, "done once");
    }
}
