//! The conflict radar in the team service (issue 47): where a team's members' changes collide,
//! read again shortly after a copy changed — only that member's reading, the others' kept — and
//! at once, whole, when a door asks.

use super::teams::TeamCtx;
use crate::protocol::TeamEvent;
use crate::runtime::teams::{self, MemberCopy};

/// How long the radar waits after a copy changed before it reads (writes come in bursts).
const RADAR_SETTLE: std::time::Duration = std::time::Duration::from_millis(300);

/// Files of a member the radar reads (the rest are not tried).
const RADAR_FILES: usize = 200;

impl TeamCtx {
    /// Reads where team `team`'s members' changes collide now, every member read again (a door
    /// asked: another process may have written the copies).
    pub(super) fn radar_now(&self, team: String) {
        {
            let mut book = self.book();
            let members: Vec<String> =
                book.team(&team).map(|t| t.members.iter().map(|(n, _)| n.clone()).collect()).unwrap_or_default();
            book.radar_dirty.extend(members.into_iter().map(|m| (team.clone(), m)));
        }
        self.radar(team, false);
    }

    /// Reads where team `team`'s members' changes collide and tells it; asked again while it
    /// reads, it reads once more after (so a member writing fast costs one reading at a time).
    /// `settle`: a copy changed — wait a moment first, so a burst of writes is read once.
    pub(super) fn radar(&self, team: String, settle: bool) {
        {
            let mut book = self.book();
            if !book.radar_reading.insert(team.clone()) {
                book.radar_stale.insert(team);
                return;
            }
        }
        let ctx = self.clone();
        tokio::spawn(async move {
            if settle {
                tokio::time::sleep(RADAR_SETTLE).await;
            }
            loop {
                // Only the members whose copy changed (or never read) are read again.
                let (members, kept) = {
                    let mut book = ctx.book();
                    let members: Vec<MemberCopy> = book
                        .team(&team)
                        .map(|t| t.members.iter().filter_map(|(_, m)| m.as_ref().ok().cloned()).collect())
                        .unwrap_or_default();
                    let keys: Vec<(String, String)> = members.iter().map(|m| (team.clone(), m.name.clone())).collect();
                    book.radar_readings.retain(|k, _| k.0 != team || keys.contains(k));
                    let book = &mut *book;
                    let (dirty, readings) = (&mut book.radar_dirty, &book.radar_readings);
                    let kept: Vec<_> =
                        keys.iter().filter(|k| !dirty.remove(*k)).filter_map(|k| readings.get(k).cloned()).collect();
                    (members, kept)
                };
                let asked = team.clone();
                let project = members.first().map(|m| m.project.clone());
                let fresh: Vec<MemberCopy> =
                    members.into_iter().filter(|m| !kept.iter().any(|k| k.name() == m.name)).collect();
                let read = ctx
                    .reading(move || {
                        let fresh: Vec<_> = fresh
                            .iter()
                            .filter_map(|m| teams::radar::read(m, RADAR_FILES).map(std::sync::Arc::new))
                            .collect();
                        let all: Vec<&teams::radar::Reading> = kept.iter().chain(&fresh).map(|r| r.as_ref()).collect();
                        let overlaps = project.map(|p| teams::radar::collisions(&all, &p)).unwrap_or_default();
                        (TeamEvent::Radar { team: asked, overlaps }, fresh)
                    })
                    .await;
                let event = read.map(|(event, fresh)| {
                    let mut book = ctx.book();
                    for r in fresh {
                        book.radar_readings.insert((team.clone(), r.name().to_string()), r);
                    }
                    event
                });
                // Each reading is told (a member that never stops writing still has its radar).
                if let Some(event) = event {
                    ctx.tell(event).await;
                }
                let mut book = ctx.book();
                if !book.radar_stale.remove(&team) {
                    book.radar_reading.remove(&team);
                    return;
                }
            }
        });
    }
}
