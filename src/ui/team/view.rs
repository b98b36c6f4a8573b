//! Teams: the form that makes one (name, project folder, kind of copy, member agents), and a
//! team's page — per member: where it works, its changed files (tick to select, click for the
//! diff), Merge all / Merge selected, the last merge's result or conflicts, Discard (confirmed);
//! a spinner while copies are made or a merge runs.

use std::collections::{BTreeSet, HashMap};

use egui::RichText;

use crate::app::ConfigCommand;
use crate::app::{AppState, Command};
use crate::model::config::{Language, RuntimeKind};
use crate::protocol::teams::{MemberCopy, ProviderKind, TeamCommand, TeamError, TeamRecord};
use crate::ui::i18n::{Key, team_error_text, tr, trf};
use crate::ui::theme::error_color;

/// The new-team form.
pub struct NewTeamForm {
    pub(super) name: String,
    /// The project folder, as typed, picked or prefilled.
    pub(in crate::ui) project: String,
    pub(super) provider: ProviderKind,
    members: BTreeSet<String>,
    lead: Option<String>,
    /// Best of N: the form is "Try with several agents" (`Some`: the task every attempt gets).
    pub(in crate::ui) try_task: Option<String>,
    /// Best of N: how many attempts of each agent.
    pub(super) attempts: std::collections::BTreeMap<String, usize>,
    /// The project folder's field has the keyboard (it is being typed).
    typing_project: bool,
    /// The copies asked to be made ahead: the project, how, how many (`prepare_ahead`).
    prepared: Option<(String, ProviderKind, usize)>,
    /// The pass the form was last drawn in (it takes the keyboard when it opens).
    drawn_in: Option<u64>,
}

impl Default for NewTeamForm {
    fn default() -> Self {
        Self {
            name: String::new(),
            project: String::new(),
            provider: ProviderKind::GitWorktree,
            members: BTreeSet::new(),
            lead: None,
            try_task: None,
            attempts: Default::default(),
            typing_project: false,
            prepared: None,
            drawn_in: None,
        }
    }
}

/// What the team views remember between frames.
#[derive(Default)]
pub struct TeamViews {
    /// The form.
    pub form: NewTeamForm,
    /// Ticked files per (team, member).
    selected: HashMap<(String, String), BTreeSet<String>>,
    /// A discard waiting for confirmation: (team, member or none for the whole team).
    confirm: Option<(String, Option<String>)>,
    /// A member whose conversation the person asked for (its name), for the window to show.
    pub open_agent: Option<String>,
    /// The "Commit as branch…" form, when open.
    branch: Option<crate::ui::team::branch::BranchForm>,
    /// The review panel, when open.
    pub review: Option<crate::ui::review::ReviewView>,
    /// The task being written for a member.
    assigning: crate::ui::team::assign::Assigning,
    /// Best of N's compare page.
    compare: crate::ui::team::compare::CompareView,
}

impl TeamViews {
    /// Asks whether to discard team `id` (its page shows the question).
    pub fn ask_discard(&mut self, id: &str) {
        self.confirm = Some((id.to_string(), None));
    }
}

/// The new-team form; returns the commands to send (the created team opens when the runtime
/// reports it).
pub fn new_team_ui(ui: &mut egui::Ui, lang: Language, state: &AppState, form: &mut NewTeamForm) -> Vec<Command> {
    let mut commands = Vec::new();
    ui.heading(tr(lang, Key::NewTeamTitle));
    ui.add_space(6.0);
    egui::Grid::new("new-team").num_columns(2).spacing([12.0, 8.0]).show(ui, |ui| {
        common_rows(ui, lang, form, &mut commands);
        ui.label(tr(lang, Key::TeamMembers));
        ui.vertical(|ui| members_ui(ui, lang, state, form));
        ui.end_row();
        ui.label(tr(lang, Key::TeamLead));
        egui::ComboBox::from_id_salt("team-lead")
            .selected_text(form.lead.clone().unwrap_or_else(|| tr(lang, Key::NoLead).to_string()))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut form.lead, None, tr(lang, Key::NoLead));
                let own = |a: &&crate::app::AgentView| state.teams.team_of(&a.config.name).is_none();
                for agent in state.agents.iter().filter(own).filter(|a| !form.members.contains(&a.config.name)) {
                    let name = agent.config.name.clone();
                    ui.selectable_value(&mut form.lead, Some(name.clone()), name);
                }
            });
        ui.end_row();
    });
    if let Some(view) = form.lead.as_ref().and_then(|l| state.agent(l))
        && view.config.runtime.kind != RuntimeKind::Local
    {
        let place = crate::i18n::where_text(lang, &view.config.runtime);
        let words = trf(lang, Key::LeadFromAfar, &[("lead", &view.config.name), ("where", &place)]);
        ui.label(RichText::new(words).color(crate::ui::theme::warning_color()));
    }
    ui.add_space(8.0);
    prepare_ahead(form, form.members.len(), &mut commands);
    let teams = &state.teams;
    if teams.creating {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(tr(lang, Key::CreatingTeam));
        });
    } else {
        let taken = name_taken(state, &form.name);
        let filled = !form.name.trim().is_empty() && !form.project.trim().is_empty() && !form.members.is_empty();
        let ready = filled && !taken;
        let create = ui.add_enabled(ready, egui::Button::new(tr(lang, Key::CreateTeam)));
        if taken {
            let taken = TeamError::NameTaken(form.name.trim().to_string());
            ui.label(RichText::new(team_error_text(lang, &taken)).small().color(crate::ui::theme::warning_color()));
        } else if !ready {
            // What is missing, said beside the greyed button.
            let missing: Vec<&str> = [
                (form.name.trim().is_empty(), Key::TeamNeedsName),
                (form.project.trim().is_empty(), Key::TeamNeedsProject),
                (form.members.is_empty(), Key::TeamNeedsMember),
            ]
            .into_iter()
            .filter(|(m, _)| *m)
            .map(|(_, key)| tr(lang, key))
            .collect();
            ui.label(RichText::new(trf(lang, Key::TeamNeeds, &[("what", &missing.join(", "))])).small().weak());
        }
        if create.clicked() {
            made_ahead_taken(form);
            commands.push(Command::Team(Box::new(TeamCommand::Create {
                name: form.name.trim().to_string(),
                project: form.project.trim().into(),
                provider: form.provider,
                agents: form.members.iter().cloned().collect(),
                lead: form.lead.clone().filter(|l| !form.members.contains(l)),
            })));
        }
    }
    // Below the button: a line appearing as the copies are made does not move it under the mouse.
    ahead_note(ui, lang, state, form);
    if let Some(e) = &teams.create_error {
        ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
    }
    commands
}

/// True when a team is named `name` already (names tell teams apart at every door, in any case).
pub(super) fn name_taken(state: &AppState, name: &str) -> bool {
    let name = name.trim();
    !name.is_empty() && state.teams.teams.iter().any(|t| t.info.record.name.trim().eq_ignore_ascii_case(name))
}

/// Asks for the members' copies to be made while the person still writes the form (issue 50):
/// once the project folder is picked or its field left, and again when more members are chosen.
/// Not while the folder is being typed (each key would name another folder); only git worktrees
/// are made ahead (`TeamCommand::Prepare`).
pub(super) fn prepare_ahead(form: &mut NewTeamForm, members: usize, commands: &mut Vec<Command>) {
    let project = form.project.trim();
    if project.is_empty() || members == 0 || form.provider != ProviderKind::GitWorktree || form.typing_project {
        return;
    }
    let asked = |(p, k, n): &(String, ProviderKind, usize)| p == project && *k == form.provider && *n >= members;
    if form.prepared.as_ref().is_some_and(asked) {
        return;
    }
    let provider = form.provider;
    commands.push(Command::Team(Box::new(TeamCommand::Prepare { project: project.into(), provider, members })));
    form.prepared = Some((project.to_string(), provider, members));
}

/// The team takes the copies made ahead: none are asked again for this form's project (the
/// person is not making another team of it yet).
pub(super) fn made_ahead_taken(form: &mut NewTeamForm) {
    form.prepared = Some((form.project.trim().to_string(), form.provider, usize::MAX));
}

/// What became of the copies made ahead for this form's project: how many are ready, or why none
/// can be made (said before Create, which would fail the same way).
pub(super) fn ahead_note(ui: &mut egui::Ui, lang: Language, state: &AppState, form: &NewTeamForm) {
    let Some((project, result)) = &state.teams.ahead else { return };
    if form.provider != ProviderKind::GitWorktree || project.as_path() != std::path::Path::new(form.project.trim()) {
        return;
    }
    match result {
        Ok(0) => {}
        Ok(1) => {
            ui.label(RichText::new(tr(lang, Key::CopyAhead)).small().weak());
        }
        Ok(n) => {
            ui.label(RichText::new(trf(lang, Key::CopiesAhead, &[("n", &n.to_string())])).small().weak());
        }
        Err(e) => {
            let words = trf(lang, Key::CopiesAheadFailed, &[("error", &team_error_text(lang, e))]);
            ui.label(RichText::new(words).small().color(crate::ui::theme::warning_color()));
        }
    }
}

/// The rows the new-team and the try forms share: name, project folder, how copies are made.
pub(super) fn common_rows(ui: &mut egui::Ui, lang: Language, form: &mut NewTeamForm, commands: &mut Vec<Command>) {
    ui.label(tr(lang, Key::TeamName));
    let name = ui.add(egui::TextEdit::singleline(&mut form.name).desired_width(320.0));
    // The form takes the keyboard when it opens (not drawn in the pass before): type the name,
    // Tab on. Not again later, when a click leaves no field with it (ticking a member).
    let pass = ui.ctx().cumulative_pass_nr();
    if form.drawn_in.is_none_or(|at| at + 1 < pass) {
        name.request_focus();
    }
    form.drawn_in = Some(pass);
    ui.end_row();
    ui.label(tr(lang, Key::ProjectFolder));
    ui.horizontal(|ui| {
        let field = ui.add(
            egui::TextEdit::singleline(&mut form.project).desired_width(420.0).hint_text(tr(lang, Key::ProjectHint)),
        );
        form.typing_project = field.has_focus();
        if ui.button(tr(lang, Key::ChooseFolder)).clicked() {
            let start_in = Some(form.project.trim()).filter(|p| !p.is_empty()).map(Into::into);
            commands.push(Command::Config(ConfigCommand::PickFolder { start_in }));
        }
    });
    ui.end_row();
    ui.label(tr(lang, Key::IsolationKind));
    ui.vertical(|ui| {
        for (kind, key) in [
            (ProviderKind::GitWorktree, Key::ProviderGit),
            (ProviderKind::Copy, Key::ProviderCopy),
            (ProviderKind::Clone, Key::ProviderClone),
        ] {
            ui.radio_value(&mut form.provider, kind, tr(lang, key));
        }
    });
    ui.end_row();
}

/// Where `agent`'s members keep their copies, when not on this computer (another machine, a
/// sandbox, a pod: the copy service there keeps them).
pub(super) fn kept_there(lang: Language, agent: &crate::app::AgentView) -> Option<String> {
    let kind = agent.config.runtime.kind;
    let target = agent.config.runtime.target_name().unwrap_or_default();
    matches!(kind, RuntimeKind::Ssh | RuntimeKind::Sbx | RuntimeKind::Kubectl).then(|| {
        trf(
            lang,
            Key::CopyKeptThere,
            &[("kind", &crate::ui::i18n::runtime_place(lang, kind.code())), ("target", target)],
        )
    })
}

/// The agents a team can be made of, each with why it cannot be chosen where it cannot.
fn members_ui(ui: &mut egui::Ui, lang: Language, state: &AppState, form: &mut NewTeamForm) {
    // Members are made from the person's agents (not from other teams' members).
    for agent in state.agents.iter().filter(|a| state.teams.team_of(&a.config.name).is_none()) {
        let name = agent.config.name.clone();
        let mut on = form.members.contains(&name);
        // Members get a copy of their own on this computer (bound into a container of their own
        // for an agent in a container), or where their agent runs (another machine, a sandbox,
        // a pod), said beside it.
        let there = kept_there(lang, agent);
        let checkbox = ui
            .horizontal(|ui| {
                let checkbox = ui.checkbox(&mut on, &name);
                if let Some(there) = &there {
                    ui.label(RichText::new(there).small().weak());
                }
                checkbox
            })
            .inner;
        if checkbox.changed() {
            if on {
                // The project is where the first member chosen works, until changed.
                if form.project.trim().is_empty() {
                    form.project = agent.config.workspace.display().to_string();
                }
                form.members.insert(name);
            } else {
                form.members.remove(&name);
            }
        }
    }
}

/// A team's page; returns the commands to send.
pub fn team_ui(ui: &mut egui::Ui, lang: Language, state: &AppState, id: &str, views: &mut TeamViews) -> Vec<Command> {
    let mut commands = Vec::new();
    let Some(team) = state.teams.team(id) else { return commands };
    if let Some(view) = views.review.as_mut().filter(|v| v.team == id) {
        let (asked, close) = crate::ui::review::team_review_ui(ui, lang, state, view);
        if close {
            views.review = None;
        }
        return asked;
    }
    let record = team.info.record.clone();
    ui.horizontal_wrapped(|ui| {
        ui.heading(&record.name);
        ui.label(RichText::new(trf(lang, Key::TeamProject, &[("path", &record.project.display().to_string())])).weak());
        if let Some(bytes) = team.info.bytes {
            let size = crate::i18n::size_text(lang, bytes as usize);
            ui.label(RichText::new(trf(lang, Key::TeamDisk, &[("size", &size)])).weak());
        }
        if ui.button(tr(lang, Key::DiscardTeam)).clicked() {
            views.confirm = Some((id.to_string(), None));
        }
    });
    if views.confirm == Some((id.to_string(), None)) {
        // Wrapped: the question is long in French and the buttons must stay in the window.
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(tr(lang, Key::DiscardTeamQuestion)).color(error_color()));
            if ui.button(tr(lang, Key::DiscardTeam)).clicked() {
                let discard = TeamCommand::Discard { team: record.id.clone(), member: None };
                commands.push(Command::Team(Box::new(discard)));
                views.confirm = None;
            }
            if ui.button(tr(lang, Key::Cancel)).clicked() {
                views.confirm = None;
            }
        });
    }
    if let Some(holder) = state.teams.waiting.get(&record.project) {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(trf(lang, Key::WaitingForProject, &[("holder", holder)]));
        });
    }
    if let Some((agent, result)) = state.teams.interrupted.get(&record.project) {
        // A merge another process left half-done, found and mended (or not) while this one runs.
        let (text, color) = match result {
            Ok(true) => (trf(lang, Key::InterruptedFinished, &[("agent", agent)]), crate::ui::theme::warning_color()),
            Ok(false) => {
                (trf(lang, Key::InterruptedRolledBack, &[("agent", agent)]), crate::ui::theme::warning_color())
            }
            Err(e) => {
                let why = team_error_text(lang, e);
                (trf(lang, Key::InterruptedFailed, &[("agent", agent), ("error", &why)]), error_color())
            }
        };
        ui.label(RichText::new(text).color(color));
    }
    if let Some(lead) = &record.lead {
        lead_ui(ui, lang, state, lead);
    }
    commands.extend(crate::ui::team::discarded::kept_notice(ui, lang, state, id));
    commands.extend(crate::ui::team::setup::check_ui(ui, lang, team));
    radar_ui(ui, lang, team);
    ui.separator();
    let members = team.info.members.clone();
    // Best of N: the attempts compared, above the members, all in one scroll.
    let tried = crate::ui::team::compare::tried(team);
    egui::ScrollArea::vertical().id_salt("team-members").show(ui, |ui| {
        if let Some(task) = &tried {
            crate::ui::team::compare::attempts_ui(ui, lang, team, task, &mut views.compare, &mut commands);
        }
        // Side by side when the page is wide (it was one column, 85 % of a wide page empty).
        let columns = ((ui.available_width() / MEMBER_WIDTH).floor() as usize).clamp(1, members.len().max(1));
        if columns == 1 {
            for (agent, copy) in &members {
                member_ui(ui, lang, state, (id, &record, team), views, (agent, copy), &mut commands);
            }
        } else {
            ui.columns(columns, |cols| {
                for (i, (agent, copy)) in members.iter().enumerate() {
                    // Not justified (a column's own layout): buttons keep their width, as in one column.
                    let layout = egui::Layout::top_down(egui::Align::Min);
                    cols[i % columns].with_layout(layout, |ui| {
                        member_ui(ui, lang, state, (id, &record, team), views, (agent, copy), &mut commands);
                    });
                }
            });
        }
    });
    commands
}

/// The question before a member's copy is discarded (its work not merged is kept, and said).
fn discard_member_ui(
    ui: &mut egui::Ui,
    lang: Language,
    team: &crate::app::teams_state::TeamState,
    (record, agent): (&TeamRecord, &String),
    confirm: &mut Option<(String, Option<String>)>,
    ask: &mut impl FnMut(TeamCommand),
) {
    let id = record.id.as_str();
    if *confirm == Some((id.to_string(), Some(agent.clone()))) {
        ui.horizontal_wrapped(|ui| {
            // Work not merged is kept, and the question says so.
            let unmerged = team.changes.get(agent).and_then(|c| c.as_ref().ok()).map_or(0, Vec::len);
            let question = match unmerged {
                0 => trf(lang, Key::DiscardMemberQuestion, &[("member", agent)]),
                n => trf(lang, Key::DiscardMemberUnmerged, &[("member", agent), ("count", &n.to_string())]),
            };
            ui.label(RichText::new(question).color(error_color()));
            if ui.button(tr(lang, Key::Discard)).clicked() {
                ask(TeamCommand::Discard { team: record.id.clone(), member: Some(agent.clone()) });
                *confirm = None;
            }
            if ui.button(tr(lang, Key::Cancel)).clicked() {
                *confirm = None;
            }
        });
    }
}

/// Who leads the team, and whether it has the team's tools (an agent on this computer only).
fn lead_ui(ui: &mut egui::Ui, lang: Language, state: &AppState, lead: &str) {
    let runtime = state.agent(lead).map(|v| &v.config.runtime);
    match runtime.filter(|r| r.kind != RuntimeKind::Local) {
        Some(runtime) => {
            let place = crate::i18n::where_text(lang, runtime);
            let words = trf(lang, Key::LedFromAfar, &[("lead", lead), ("where", &place)]);
            ui.label(RichText::new(words).color(crate::ui::theme::warning_color()));
        }
        None => {
            ui.label(RichText::new(trf(lang, Key::LedBy, &[("lead", lead)])).weak());
        }
    }
}

/// The narrowest a member's column gets before members go one under the other.
const MEMBER_WIDTH: f32 = 460.0;

/// One member of the team: its name (to its conversation), where it works, its setup, buttons,
/// merges, changes and the diff asked for.
#[allow(clippy::too_many_arguments)]
fn member_ui(
    ui: &mut egui::Ui,
    lang: Language,
    state: &AppState,
    (id, record, team): (&str, &TeamRecord, &crate::app::teams_state::TeamState),
    views: &mut TeamViews,
    (agent, copy): (&String, &Result<MemberCopy, TeamError>),
    commands: &mut Vec<Command>,
) {
    ui.add_space(4.0);
    // The member's name goes to its conversation.
    if ui.link(RichText::new(agent).strong()).on_hover_text(tr(lang, Key::Conversation)).clicked() {
        views.open_agent = Some(agent.clone());
    }
    let member = match copy {
        Ok(member) => member.clone(),
        Err(e) => {
            ui.label(RichText::new(team_error_text(lang, e)).color(error_color()));
            return;
        }
    };
    ui.label(RichText::new(trf(lang, Key::MemberWorksIn, &[("path", &member.copy_shown())])).weak());
    if let Some(task) = team.task_of(agent) {
        super::task::task_ui(ui, lang, task);
    }
    if let Some(command) = crate::ui::team::assign::assign_ui(ui, lang, &mut views.assigning, id, agent) {
        commands.push(command);
    }
    if let Some(command) = crate::ui::team::setup::setup_ui(ui, lang, team, &member) {
        commands.push(command);
    }
    let busy = team.busy.contains(agent);
    // The change list comes from the runtime as the member works (the team is followed).
    let team_id = id.to_string();
    let mut ask = |command: TeamCommand| commands.push(Command::Team(Box::new(command)));
    let selected = views.selected.entry((id.to_string(), agent.clone())).or_default();
    // Wrapped: side by side, a member's column is narrower than its buttons.
    ui.horizontal_wrapped(|ui| {
        if busy {
            ui.spinner();
        }
        ui.add_enabled_ui(!busy, |ui| {
            if ui.button(tr(lang, Key::Refresh)).clicked() {
                ask(TeamCommand::Changes { team: team_id.clone(), member: agent.clone() });
            }
            // Nothing to merge: not offered (a merge of 0 files said nothing useful), nor a review
            // or a branch of nothing.
            let nothing = super::member_work::nothing_to_merge(team, agent);
            let review = ui.add_enabled(!nothing, egui::Button::new(tr(lang, Key::Review)));
            if review.on_hover_text(tr(lang, Key::ReviewHint)).clicked() {
                views.review = Some(crate::ui::review::ReviewView::new(id, agent));
                ask(TeamCommand::Review { team: team_id.clone(), member: agent.clone() });
            }
            if ui.add_enabled(!nothing, egui::Button::new(tr(lang, Key::MergeAll))).clicked() {
                ask(TeamCommand::Merge { team: team_id.clone(), member: agent.clone(), selected: None });
                selected.clear();
            }
            let some = !selected.is_empty();
            if ui.add_enabled(some, egui::Button::new(tr(lang, Key::MergeSelected))).clicked() {
                let paths = Some(selected.iter().cloned().collect());
                ask(TeamCommand::Merge { team: team_id.clone(), member: agent.clone(), selected: paths });
                selected.clear();
            }
            if ui.button(tr(lang, Key::Discard)).clicked() {
                views.confirm = Some((id.to_string(), Some(agent.clone())));
            }
            let branch = ui.add_enabled(!nothing, egui::Button::new(tr(lang, Key::CommitAsBranch)));
            if branch.on_hover_text(tr(lang, Key::CommitAsBranchHint)).clicked() {
                views.branch = Some(crate::ui::team::branch::BranchForm::new(state, id, agent));
            }
        });
    });
    if let Some(command) = crate::ui::team::branch::form_ui(ui, lang, &mut views.branch, &member, id) {
        ask(command);
    }
    crate::ui::team::branch::result_ui(ui, lang, team, agent);
    discard_member_ui(ui, lang, team, (record, agent), &mut views.confirm, &mut ask);
    if let Some(command) = super::member_work::merges_ui(ui, lang, team, &team_id, agent, busy) {
        ask(command);
    }
    if let Some(command) = super::member_work::changes_ui(ui, lang, team, &team_id, agent, selected) {
        ask(command);
    }
    ui.separator();
}

/// Where the members' changes meet (the radar): each file two or more change at the same
/// lines, before any of them merges.
fn radar_ui(ui: &mut egui::Ui, lang: Language, team: &crate::app::teams_state::TeamState) {
    if team.overlaps.is_empty() {
        return;
    }
    ui.label(RichText::new(tr(lang, Key::RadarTitle)).color(crate::ui::theme::warning_color()));
    for o in &team.overlaps {
        let mut names: Vec<&str> = o.members.iter().map(|m| crate::model::member_name::in_team(m)).collect();
        if o.project {
            names.push(tr(lang, Key::RadarProject));
        }
        let members = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => trf(lang, Key::RadarAnd, &[("some", &rest.join(", ")), ("last", last)]),
            None => continue,
        };
        let words = match o.lines {
            Some((line, to)) if line == to => {
                trf(lang, Key::RadarLine, &[("members", &members), ("path", &o.path), ("line", &line.to_string())])
            }
            Some((from, to)) => trf(
                lang,
                Key::RadarLines,
                &[("members", &members), ("path", &o.path), ("from", &from.to_string()), ("to", &to.to_string())],
            ),
            None => trf(lang, Key::RadarFile, &[("members", &members), ("path", &o.path)]),
        };
        ui.label(RichText::new(format!("• {words}")).color(crate::ui::theme::warning_color()));
    }
}
