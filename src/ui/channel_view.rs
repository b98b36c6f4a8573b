//! A channel: its members (state, Stop each, Stop all), the timeline — the person's messages and
//! each member's answer drawn from its own conversation under its name — the members' pending
//! permission cards, and a composer (`@name` addresses one member; no mention: everyone).

use egui::RichText;
use egui_commonmark::CommonMarkCache;

use super::i18n::{Key, state_text, tr, trf};
use super::message::{MessageActions, message_ui};
use super::message_list::MessageList;
use super::permission_card::permission_card_ui;
use super::theme::{self, state_dot};
use crate::app::AgentCommand;
use crate::app::channels_state::{ChannelState, answer_messages};
use crate::app::{AgentState, AppState, Command, Request};
use crate::model::channel::Entry;
use crate::model::config::Language;
use crate::protocol::teams::TeamCommand;

/// What the window keeps for one channel.
#[derive(Default)]
pub struct ChannelPane {
    /// What is being typed to it.
    pub draft: String,
    /// Its timeline's laid-out list: only the entries in view are laid out, so a long history
    /// costs a frame no more than a short one.
    pub list: MessageList,
}

/// Draws channel `name`; returns what it asks for.
pub fn channel_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    name: &str,
    pane: &mut ChannelPane,
    markdown: &mut CommonMarkCache,
) -> Vec<Request> {
    let lang = state.language;
    let mut commands: Vec<Request> = Vec::new();
    let Some(channel) = state.channels.channel(name) else { return commands };
    ui.horizontal(|ui| {
        ui.heading(format!("#{}", channel.title));
        if let Some(d) = &channel.description {
            ui.label(RichText::new(d).weak());
        }
    });
    members_ui(ui, state, channel, &mut commands);
    team_ui(ui, state, channel, &mut commands);
    if channel.members.is_empty() {
        ui.label(RichText::new(tr(lang, Key::NoChannelMembers)).weak());
    }
    ui.separator();
    composer_ui(ui, lang, channel, name, pane, &mut commands);
    timeline_ui(ui, state, channel, pane, markdown, &mut commands);
    commands
}

/// The members: each one's state, a Stop for each one at work, and Stop all.
fn members_ui(ui: &mut egui::Ui, state: &AppState, channel: &ChannelState, commands: &mut Vec<Request>) {
    let lang = state.language;
    ui.horizontal_wrapped(|ui| {
        for member in &channel.members {
            let Some(agent) = state.agent(member) else { continue };
            state_dot(ui, &agent.state, state_text(lang, &agent.state));
            super::theme::avatar(ui, member, agent.place);
            ui.label(RichText::new(member).strong().color(super::theme::member_color(agent.place)));
            if agent.state == AgentState::Busy
                && ui.small_button(tr(lang, Key::StopTurn)).on_hover_text(member.as_str()).clicked()
            {
                commands.push(Command::Agent(member.clone().into(), AgentCommand::Cancel).into());
            }
            ui.add_space(8.0);
        }
        let busy: Vec<String> = channel
            .members
            .iter()
            .filter(|m| state.agent(m).is_some_and(|a| a.state == AgentState::Busy))
            .cloned()
            .collect();
        if ui.add_enabled(!busy.is_empty(), egui::Button::new(tr(lang, Key::StopAll))).clicked() {
            commands.extend(busy.into_iter().map(|agent| Command::Agent(agent.into(), AgentCommand::Cancel).into()));
        }
    });
}

/// A team channel: each member's work, merged from here.
fn team_ui(ui: &mut egui::Ui, state: &AppState, channel: &ChannelState, commands: &mut Vec<Request>) {
    let lang = state.language;
    if let Some(team_id) = &channel.team
        && let Some(team) = state.teams.team(team_id)
    {
        ui.horizontal_wrapped(|ui| {
            for member in channel.members.iter().filter(|m| channel.lead.as_ref() != Some(*m)) {
                if team.member(member).is_none() {
                    continue;
                }
                let busy = team.busy.contains(member);
                if busy {
                    ui.spinner();
                }
                let label = trf(lang, Key::MergeWork, &[("member", member)]);
                let nothing = matches!(team.changes.get(member.as_str()), Some(Ok(c)) if c.is_empty());
                if ui.add_enabled(!busy && !nothing, egui::Button::new(label)).clicked() {
                    let merge = TeamCommand::Merge { team: team_id.clone(), member: member.clone(), selected: None };
                    commands.push(Command::Team(Box::new(merge)).into());
                }
                match team.merges.get(member) {
                    Some(Ok(r)) if r.conflicts.is_empty() => {
                        let applied = r.applied.len().to_string();
                        ui.label(RichText::new(trf(lang, Key::MergedReport, &[("applied", &applied)])).small());
                    }
                    Some(Ok(_)) => {
                        ui.label(RichText::new(trf(lang, Key::ConflictsReport, &[("member", member)])).small());
                    }
                    Some(Err(e)) => {
                        ui.label(RichText::new(super::i18n::team_error_text(lang, e)).small());
                    }
                    None => {}
                }
                ui.add_space(8.0);
            }
        });
    }
}

/// The composer: `@` completes the members' names; the sending key sends to the channel.
fn composer_ui(
    ui: &mut egui::Ui,
    lang: Language,
    channel: &ChannelState,
    name: &str,
    pane: &mut ChannelPane,
    commands: &mut Vec<Request>,
) {
    egui::Panel::bottom("channel-composer").show(ui, |ui| {
        super::conversation::column(ui, |ui| {
            let send_with = super::send_key::get(ui);
            let id = ui.make_persistent_id(("channel-composer", name));
            let focused = ui.memory(|m| m.has_focus(id));
            let draft = &mut pane.draft;
            // `@` completes the members' names (Tab or Enter picks), as the agent's composer does
            // paths; the menu takes its keys first.
            let members: Vec<(String, bool)> = channel.members.iter().map(|m| (m.clone(), false)).collect();
            let (menu, _) = super::mention_menu::keys(ui, id, focused, draft, &members);
            // Tab stays in the composer: it moved to Send, and the space typed next sent a
            // half-typed message to everyone.
            if focused && !menu {
                ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Tab));
            }
            let listed = Ok(members);
            super::mention_menu::menu_ui(ui, id, focused, draft, Some(&listed), "");
            // The sending key is taken before the field would make a new line of it.
            let enter = focused && !menu && super::send_key::take(ui, send_with);
            ui.horizontal(|ui| {
                let keys = super::send_key::hint(lang, send_with);
                let hint = trf(lang, Key::MessageChannel, &[("name", &channel.title), ("keys", keys)]);
                let width = (ui.available_width() - 90.0).max(120.0);
                // Focus locked: Tab is the menu's or nothing (taken above), never the next widget's.
                let field = egui::TextEdit::multiline(draft).id(id).lock_focus(true);
                ui.add(field.desired_rows(2).desired_width(width).hint_text(hint));
                let clicked = ui.button(tr(lang, Key::Send)).clicked();
                if (enter || clicked) && !draft.trim().is_empty() {
                    let text = draft.trim().to_string();
                    draft.clear();
                    commands.push(Request::Say { channel: name.to_string(), text });
                    pane.list.jump_to_bottom();
                }
            });
        })
    });
}

/// The timeline: the person's words, hand-overs, notices and each member's answer, with the
/// permission cards of members whose message is not in view.
fn timeline_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    channel: &ChannelState,
    pane: &mut ChannelPane,
    markdown: &mut CommonMarkCache,
    commands: &mut Vec<Request>,
) {
    let lang = state.language;
    let mut actions = MessageActions::default();
    let timeline = &channel.timeline;
    // The members' messages in view: their permission cards are drawn with them, not again below.
    let mut shown: std::collections::HashSet<(&str, usize)> = std::collections::HashSet::new();
    // One item per entry, then one for the permission cards not drawn with their messages.
    // A reading column on a wide window, as the agents' conversations.
    pane.list.show(ui, timeline.entries.len() + 1, |ui, index| {
        super::conversation::column(ui, |ui| {
            let Some(entry) = timeline.entries.get(index) else {
                if timeline.entries.is_empty() {
                    ui.label(RichText::new(tr(lang, Key::ChannelEmpty)).weak());
                }
                // Permission requests of the members whose message is not in view, answered here too.
                for member in &channel.members {
                    let Some(view) = state.agent(member) else { continue };
                    let drawn = |c: &&crate::app::PermissionCard| {
                        c.message.is_some_and(|i| shown.contains(&(member.as_str(), i)))
                    };
                    for card in view.permissions.iter().filter(|c| c.answer.is_none()).filter(|c| !drawn(c)) {
                        if let Some(c) = permission_card_ui(ui, lang, member, &view.config.runtime, card) {
                            commands.push(c.into());
                        }
                    }
                }
                return;
            };
            match entry {
                Entry::User { text, to, from: None, at } => {
                    // The person's words as a block of their own, as in a conversation (issue 48,
                    // item 10): the members' answers are the page.
                    ui.add_space(theme::GAP);
                    theme::user_frame(ui.visuals()).show(ui, |ui| {
                        ui.set_width(ui.available_width());
                        let to = trf(lang, Key::ChannelTo, &[("to", &to.join(", "))]);
                        let who = ui.label(RichText::new(to).strong());
                        super::message::time_on_hover(&who, lang, *at);
                        ui.label(text);
                    });
                }
                Entry::Notice { text, to } => {
                    ui.add_space(6.0);
                    ui.label(RichText::new(trf(lang, Key::ChannelSidekicksTo, &[("to", &to.join(", "))])).strong());
                    ui.label(text);
                }
                Entry::User { to, from: Some(lead), .. } => {
                    let words = trf(lang, Key::ChannelHandOver, &[("lead", lead), ("to", &to.join(", "))]);
                    ui.label(RichText::new(words).weak().italics());
                }
                Entry::Answer { agent, prompt, id, text } => {
                    // The task this message carries, where it is now.
                    let tasks = channel.team.as_ref().and_then(|t| state.teams.team(t)).map(|t| &t.tasks);
                    let carried = |t: &&crate::protocol::teams::Task| {
                        id.as_ref().is_some_and(|id| t.message.as_deref() == Some(id.0.as_str()))
                    };
                    if let Some(task) = tasks.and_then(|tasks| tasks.iter().find(carried)) {
                        super::team::task::task_ui(ui, lang, task);
                    }
                    // The member's messages while it answers and while its thread holds them; the
                    // answer kept by the channel otherwise (another thread open, member gone).
                    let messages =
                        state.agent(agent).map(|v| (v, answer_messages(&v.conversation.messages, prompt, id.as_ref())));
                    match (messages, text) {
                        (Some((view, range)), _) if !range.is_empty() => {
                            for index in range {
                                message_ui(ui, lang, markdown, view, index, &mut actions);
                                shown.insert((agent.as_str(), index));
                            }
                        }
                        (_, Some(text)) => {
                            ui.add_space(6.0);
                            ui.label(RichText::new(agent).strong());
                            ui.label(text);
                        }
                        _ => {}
                    }
                }
            }
        })
    });
    commands.extend(actions.commands.into_iter().map(Request::from));
}
