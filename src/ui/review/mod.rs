//! The review panel of a team member's work: the changed files as a tree with counts (left), and
//! every file's diff one after another (right), unified or side by side, with line numbers, hunk
//! headers, syntax colours and the changed words emphasised. Files and hunks are accepted (merged
//! into the project) or rejected (taken out of the member's copy) one by one; n and p go to the
//! next and previous file; a click on a line's number comments on it, and "Send review" sends all
//! comments to the member as one message. Only the rows on screen are laid out.

pub mod rows;

use std::collections::HashSet;

use egui::RichText;

use crate::app::{AppState, Command};
use crate::model::config::Language;
use crate::model::review::Hunk;
use crate::model::review::{Comment, TreeRow, review_message, tree};
use crate::protocol::teams::{Change, ChangeKind, ReviewFile, TeamCommand};
use crate::ui::i18n::{Key, team_error_text, tr, trf};
use crate::ui::review::rows::{Anchor, Row, anchor, line_ui, rows};
use crate::ui::theme::{error_color, ok_color};

/// The colour of a hunk's header.
const HUNK: egui::Color32 = egui::Color32::from_rgb(110, 150, 220);

/// What the review panel remembers.
pub struct ReviewView {
    /// The team (its id).
    pub team: String,
    /// The member under review.
    pub agent: String,
    split: bool,
    current: usize,
    scroll_to: Option<usize>,
    folded: HashSet<String>,
    comments: Vec<Comment>,
    editing: Option<(Anchor, String)>,
    sent: bool,
    /// The current file follows the scroll (the person scrolled since the last jump).
    follow_scroll: bool,
    /// The tree laid out last, and the review it was made from.
    tree: (Option<u64>, std::rc::Rc<Vec<TreeRow>>),
    /// Counts the folds and comments changed (the rows are made again).
    edits: u64,
    /// The rows laid out last, and what they were made from.
    rows: (Option<RowsKey>, std::rc::Rc<Vec<Row>>),
}

/// What the rows depend on: the review received, the mode, what is folded, the comments.
#[derive(Clone, PartialEq)]
struct RowsKey {
    generation: u64,
    split: bool,
    edits: u64,
    editing: Option<Anchor>,
}

impl ReviewView {
    /// A review of `agent`'s work in team `team`.
    pub fn new(team: &str, agent: &str) -> Self {
        Self {
            team: team.into(),
            agent: agent.into(),
            split: false,
            current: 0,
            scroll_to: None,
            folded: HashSet::new(),
            comments: Vec::new(),
            editing: None,
            sent: false,
            follow_scroll: false,
            edits: 0,
            tree: (None, Default::default()),
            rows: (None, Default::default()),
        }
    }

    /// Side by side (true) or unified.
    pub fn set_split(&mut self, split: bool) {
        self.split = split;
    }

    fn go(&mut self, file: usize) {
        self.current = file;
        self.scroll_to = Some(file);
    }
}

/// What the panel reviews, from whichever source (a team member's copy, an agent's workspace
/// since a checkpoint).
pub struct ReviewInput<'a> {
    /// The heading.
    pub title: String,
    /// The changed files (`None`: being read), or why they could not be read.
    pub files: Option<Result<&'a [ReviewFile], String>>,
    /// Changes each time new files come (the rows are laid out again).
    pub generation: u64,
    /// A decision is being carried out: the buttons wait.
    pub busy: bool,
    /// Why the last decision was not carried out.
    pub error: Option<String>,
    /// What the last decision did, when it did something.
    pub done: Option<String>,
    /// Files and hunks can be accepted (merged into the team's project).
    pub accept: bool,
    /// The words of "reject": its label and hint for a file, for a hunk.
    pub reject: [(Key, Key); 2],
    /// The words of the button that closes the panel.
    pub close: Key,
}

/// What the person decided in the panel, for its source to carry out.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Accept a whole file (both ends of a rename).
    AcceptFile(Change),
    /// Reject a whole file.
    RejectFile(Change),
    /// Accept one hunk of a file.
    AcceptHunk(String, Hunk),
    /// Reject one hunk of a file.
    RejectHunk(String, Hunk),
    /// Send the comments, as this message.
    Send(String),
}

/// A team member's work under review; returns the commands to send and whether it was closed.
pub fn team_review_ui(
    ui: &mut egui::Ui,
    lang: Language,
    state: &AppState,
    view: &mut ReviewView,
) -> (Vec<Command>, bool) {
    let Some(team) = state.teams.team(&view.team) else { return (Vec::new(), true) };
    let Some(member) = team.member(&view.agent).cloned() else { return (Vec::new(), true) };
    let input = ReviewInput {
        title: trf(lang, Key::ReviewTitle, &[("agent", &view.agent)]),
        files: team.review.as_ref().and_then(|(_, r)| r.as_ref()).map(|r| match r {
            Ok(files) => Ok(files.as_slice()),
            Err(e) => Err(team_error_text(lang, e)),
        }),
        generation: team.review_generation,
        busy: team.busy.contains(&view.agent),
        error: team.decision_error.as_ref().map(|e| team_error_text(lang, e)),
        done: team.decision_done.map(|d| match d {
            crate::app::teams_state::Decided::Merged(n) => trf(lang, Key::DecisionMerged, &[("count", &n.to_string())]),
            crate::app::teams_state::Decided::Rejected => tr(lang, Key::DecisionRejected).to_string(),
        }),
        accept: true,
        reject: [(Key::RejectFile, Key::RejectFileHint), (Key::RejectHunk, Key::RejectHunkHint)],
        close: Key::CloseReview,
    };
    let (decisions, close) = review_ui(ui, lang, input, view);
    let team = view.team.clone();
    let commands = decisions
        .into_iter()
        .map(|d| {
            let (team, member) = (team.clone(), member.name.clone());
            let command = match d {
                Decision::AcceptFile(change) => TeamCommand::Merge { team, member, selected: Some(change.paths()) },
                Decision::RejectFile(change) => TeamCommand::RejectFiles { team, member, changes: vec![change] },
                Decision::AcceptHunk(path, hunk) => TeamCommand::DecideHunk { team, member, path, hunk, accept: true },
                Decision::RejectHunk(path, hunk) => TeamCommand::DecideHunk { team, member, path, hunk, accept: false },
                Decision::Send(text) => {
                    let agent = member;
                    return Command::prompt(agent, text);
                }
            };
            Command::Team(Box::new(command))
        })
        .collect();
    (commands, close)
}

/// The review panel; returns what the person decided and whether they closed it.
pub fn review_ui(
    ui: &mut egui::Ui,
    lang: Language,
    input: ReviewInput,
    view: &mut ReviewView,
) -> (Vec<Decision>, bool) {
    let mut decisions = Vec::new();
    let generation = input.generation;
    let files: &[ReviewFile] = match &input.files {
        Some(Ok(files)) => files,
        _ => &[],
    };
    let mut close = false;
    ui.horizontal_wrapped(|ui| {
        ui.heading(&input.title);
        let (added, removed) =
            files.iter().filter_map(|f| f.diff.as_ref()).fold((0, 0), |(a, r), d| (a + d.added, r + d.removed));
        let counts =
            [("files", files.len().to_string()), ("added", added.to_string()), ("removed", removed.to_string())];
        let counts: Vec<(&str, &str)> = counts.iter().map(|(k, v)| (*k, v.as_str())).collect();
        ui.label(RichText::new(trf(lang, Key::ReviewCounts, &counts)).weak());
        ui.separator();
        ui.selectable_value(&mut view.split, false, tr(lang, Key::Unified));
        ui.selectable_value(&mut view.split, true, tr(lang, Key::SideBySide));
        ui.separator();
        let last = files.len().saturating_sub(1);
        if ui.add_enabled(view.current > 0, egui::Button::new(tr(lang, Key::PrevFile))).clicked() {
            view.go(view.current - 1);
        }
        if ui.add_enabled(view.current < last, egui::Button::new(tr(lang, Key::NextFile))).clicked() {
            view.go(view.current + 1);
        }
        ui.separator();
        let count = view.comments.len().to_string();
        let send = egui::Button::new(trf(lang, Key::SendReview, &[("count", &count)]));
        if ui.add_enabled(!view.comments.is_empty(), send).clicked() {
            decisions.push(Decision::Send(review_message(&view.comments)));
            view.comments.clear();
            view.edits += 1;
            view.sent = true;
        }
        if ui.button(tr(lang, input.close)).clicked() {
            close = true;
        }
    });
    // n and p, unless a text field has the keyboard.
    if !ui.ctx().egui_wants_keyboard_input() && !files.is_empty() {
        let (next, prev) = ui.input_mut(|i| {
            (i.consume_key(egui::Modifiers::NONE, egui::Key::N), i.consume_key(egui::Modifiers::NONE, egui::Key::P))
        });
        if next && view.current + 1 < files.len() {
            view.go(view.current + 1);
        }
        if prev && view.current > 0 {
            view.go(view.current - 1);
        }
    }
    if view.sent {
        ui.label(RichText::new(trf(lang, Key::ReviewSent, &[("agent", &view.agent)])).color(ok_color()));
    }
    if let Some(e) = &input.error {
        ui.label(RichText::new(e).color(error_color()));
    } else if let Some(done) = &input.done {
        ui.label(RichText::new(done).color(ok_color()));
    }
    match &input.files {
        None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(tr(lang, Key::ReadingReview));
            });
            return (decisions, close);
        }
        Some(Err(e)) => {
            ui.label(RichText::new(e).color(error_color()));
            return (decisions, close);
        }
        Some(Ok([])) => {
            ui.label(RichText::new(tr(lang, Key::NothingToReview)).weak());
            return (decisions, close);
        }
        Some(Ok(_)) => {}
    }
    view.current = view.current.min(files.len() - 1);
    // A team member's work, or an agent's own workspace: who the comments go to.
    let how = if input.accept { Key::CommentHow } else { Key::CommentHowAgent };
    ui.label(RichText::new(tr(lang, how)).weak().small());
    ui.separator();
    egui::Panel::left("review-tree")
        .resizable(true)
        .default_size(260.0)
        .show(ui, |ui| tree_ui(ui, files, view, generation));
    egui::CentralPanel::default().show(ui, |ui| {
        let mut ctx =
            Ctx { lang, busy: input.busy, accept: input.accept, reject: input.reject, decisions: &mut decisions };
        diff_ui(ui, files, view, &mut ctx, generation);
    });
    (decisions, close)
}

fn tree_ui(ui: &mut egui::Ui, files: &[ReviewFile], view: &mut ReviewView, generation: u64) {
    if view.tree.0 != Some(generation) {
        let counts: Vec<(&str, usize, usize)> = files
            .iter()
            .map(|f| {
                let (a, r) = f.diff.as_ref().map_or((0, 0), |d| (d.added, d.removed));
                (f.change.path.as_str(), a, r)
            })
            .collect();
        view.tree = (Some(generation), std::rc::Rc::new(tree(&counts)));
    }
    let rows: std::rc::Rc<Vec<TreeRow>> = view.tree.1.clone();
    let height = ui.text_style_height(&egui::TextStyle::Body) + 2.0;
    egui::ScrollArea::vertical().id_salt("review-tree-rows").auto_shrink([false, false]).show_rows(
        ui,
        height,
        rows.len(),
        |ui, range| {
            for row in &rows[range] {
                ui.horizontal(|ui| {
                    ui.add_space(row.depth as f32 * 12.0);
                    let counts = RichText::new(format!("+{} -{}", row.added, row.removed)).weak().small();
                    match row.file {
                        Some(i) => {
                            if ui.selectable_label(view.current == i, &row.name).clicked() {
                                view.go(i);
                            }
                        }
                        None => {
                            ui.label(RichText::new(format!("{}/", row.name)).strong());
                        }
                    }
                    ui.label(counts);
                });
            }
        },
    );
}

/// What the diff rows need besides the view.
struct Ctx<'a> {
    lang: Language,
    busy: bool,
    accept: bool,
    reject: [(Key, Key); 2],
    decisions: &'a mut Vec<Decision>,
}

fn diff_ui(ui: &mut egui::Ui, files: &[ReviewFile], view: &mut ReviewView, ctx: &mut Ctx, generation: u64) {
    // The rows are made again only when what they show changed, not on every frame.
    let key = RowsKey {
        generation,
        split: view.split,
        edits: view.edits,
        editing: view.editing.as_ref().map(|(a, _)| a.clone()),
    };
    if view.rows.0.as_ref() != Some(&key) {
        let made = rows(files, view.split, &view.folded, &view.comments, key.editing.as_ref());
        view.rows = (Some(key), std::rc::Rc::new(made));
    }
    let all = view.rows.1.clone();
    let mono = ui.text_style_height(&egui::TextStyle::Monospace);
    let height = (mono + 4.0).max(ui.spacing().interact_size.y);
    let mut area = egui::ScrollArea::vertical().id_salt(("review-rows", &view.agent)).auto_shrink([false, false]);
    if let Some(file) = view.scroll_to.take()
        && let Some(at) = all.iter().position(|r| *r == Row::File(file))
    {
        area = area.vertical_scroll_offset(at as f32 * (height + ui.spacing().item_spacing.y));
        // Where the jump lands (the end of the content may stop it short) is not the person's
        // scroll: the current file stays the one asked for until they scroll themselves.
        view.follow_scroll = false;
    }
    let out = area.show_rows(ui, height, all.len(), |ui, range| {
        let width = ui.available_width();
        for row in &all[range] {
            row_ui(ui, *row, files, view, ctx, width, height);
        }
    });
    // Scrolled by the person (wheel, or a drag on the bar): the file at the top of the view
    // becomes the current one.
    let pointer_in = ui.input(|i| i.pointer.hover_pos()).is_some_and(|p| out.inner_rect.expand(16.0).contains(p));
    view.follow_scroll |= pointer_in && ui.input(|i| i.smooth_scroll_delta().y != 0.0 || i.pointer.primary_down());
    if view.follow_scroll {
        let offset = out.state.clamped_offset().y;
        let top = ((offset / (height + ui.spacing().item_spacing.y)) as usize).min(all.len().saturating_sub(1));
        if let Some(file) = all[..=top].iter().rev().find_map(file_of) {
            view.current = file;
        }
    }
}

fn file_of(row: &Row) -> Option<usize> {
    match row {
        Row::File(f) => Some(*f),
        _ => None,
    }
}

fn row_ui(
    ui: &mut egui::Ui,
    row: Row,
    files: &[ReviewFile],
    view: &mut ReviewView,
    ctx: &mut Ctx,
    width: f32,
    height: f32,
) {
    let lang = ctx.lang;
    let language = |f: usize| crate::ui::file_editor::language_of(&files[f].change.path);
    match row {
        Row::File(f) => file_row_ui(ui, &files[f], view, ctx, height),
        Row::NoDiff(_) => {
            ui.add_sized([width, height], egui::Label::new(RichText::new(tr(lang, Key::NoLineDiff)).weak()));
        }
        Row::Hunk(f, h) => hunk_row_ui(ui, &files[f], h, ctx, height),
        Row::Line(f, h, l) => {
            let line = &files[f].diff.as_ref().expect("a diff").hunks[h].lines[l];
            if line_ui(ui, line, (true, true), language(f), width, height).clicked() {
                view.editing = Some((anchor(&files[f].change.path, line), String::new()));
            }
        }
        Row::Pair(f, h, left, right) => {
            let hunk = &files[f].diff.as_ref().expect("a diff").hunks[h];
            let half = (width / 2.0 - 2.0).max(80.0);
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                for (side, numbers) in [(left, (true, false)), (right, (false, true))] {
                    match side {
                        Some(i) => {
                            let line = &hunk.lines[i];
                            if line_ui(ui, line, numbers, language(f), half, height).clicked() {
                                view.editing = Some((anchor(&files[f].change.path, line), String::new()));
                            }
                        }
                        None => {
                            ui.allocate_exact_size(egui::vec2(half, height), egui::Sense::hover());
                        }
                    }
                }
            });
        }
        Row::Comment(i) => {
            let mut remove = false;
            if let Some(c) = view.comments.get(i) {
                ui.horizontal(|ui| {
                    ui.set_height(height);
                    ui.add_space(48.0);
                    ui.label(RichText::new(tr(lang, Key::CommentLabel)).strong());
                    ui.label(&c.text);
                    remove = ui.small_button(tr(lang, Key::RemoveComment)).clicked();
                });
            }
            if remove {
                view.comments.remove(i);
                view.edits += 1;
            }
        }
        Row::Editor => editor_ui(ui, lang, view, height),
    }
}

/// A file's row: fold or show it, its path and kind, its counts, accept or reject it whole.
fn file_row_ui(ui: &mut egui::Ui, file: &ReviewFile, view: &mut ReviewView, ctx: &mut Ctx, height: f32) {
    let lang = ctx.lang;
    let path = file.change.path.clone();
    ui.horizontal(|ui| {
        ui.set_height(height);
        let folded = view.folded.contains(&path);
        if ui.small_button(tr(lang, if folded { Key::ShowFile } else { Key::HideFile })).clicked() {
            if folded {
                view.folded.remove(&path);
                view.edits += 1;
            } else {
                view.folded.insert(path.clone());
                view.edits += 1;
            }
        }
        ui.label(RichText::new(&path).monospace().strong());
        ui.label(RichText::new(crate::i18n::change_text(lang, &file.change.kind)).weak());
        if let Some(d) = &file.diff {
            ui.label(RichText::new(format!("+{}", d.added)).color(ok_color()));
            ui.label(RichText::new(format!("-{}", d.removed)).color(error_color()));
        }
        ui.add_enabled_ui(!ctx.busy, |ui| {
            if ctx.accept
                && ui.small_button(tr(lang, Key::AcceptFile)).on_hover_text(tr(lang, Key::AcceptFileHint)).clicked()
            {
                ctx.decisions.push(Decision::AcceptFile(file.change.clone()));
            }
            let (label, hint) = ctx.reject[0];
            if ui.small_button(tr(lang, label)).on_hover_text(tr(lang, hint)).clicked() {
                ctx.decisions.push(Decision::RejectFile(file.change.clone()));
            }
        });
    });
}

/// A hunk's header, with accept and reject where hunks are decided one by one.
fn hunk_row_ui(ui: &mut egui::Ui, file: &ReviewFile, h: usize, ctx: &mut Ctx, height: f32) {
    let lang = ctx.lang;
    let hunk = &file.diff.as_ref().expect("a diff").hunks[h];
    ui.horizontal(|ui| {
        ui.set_height(height);
        ui.label(RichText::new(hunk.header()).monospace().color(HUNK));
        // Hunks are decided one by one in a file both sides have as text.
        if file.change.kind == ChangeKind::Modified {
            ui.add_enabled_ui(!ctx.busy, |ui| {
                let path = &file.change.path;
                if ctx.accept
                    && ui.small_button(tr(lang, Key::AcceptHunk)).on_hover_text(tr(lang, Key::AcceptHunkHint)).clicked()
                {
                    ctx.decisions.push(Decision::AcceptHunk(path.clone(), hunk.clone()));
                }
                let (label, hint) = ctx.reject[1];
                if ui.small_button(tr(lang, label)).on_hover_text(tr(lang, hint)).clicked() {
                    ctx.decisions.push(Decision::RejectHunk(path.clone(), hunk.clone()));
                }
            });
        }
    });
}

fn editor_ui(ui: &mut egui::Ui, lang: Language, view: &mut ReviewView, height: f32) {
    let Some(((path, line, removed), draft)) = &mut view.editing else { return };
    let (mut add, mut cancel) = (false, false);
    ui.horizontal(|ui| {
        ui.set_height(height);
        ui.add_space(48.0);
        let hint = trf(lang, Key::CommentHint, &[("line", &line.to_string())]);
        // The field takes what the two buttons leave (Cancel was cut off in a narrow window).
        let buttons = [Key::AddComment, Key::Cancel]
            .map(|k| {
                let galley = ui.painter().layout_no_wrap(
                    tr(lang, k).to_string(),
                    egui::TextStyle::Button.resolve(ui.style()),
                    egui::Color32::WHITE,
                );
                galley.size().x + 2.0 * ui.spacing().button_padding.x + ui.spacing().item_spacing.x
            })
            .iter()
            .sum::<f32>();
        let width = (ui.available_width() - buttons - ui.spacing().item_spacing.x).clamp(80.0, 480.0);
        let field = ui.add(egui::TextEdit::singleline(draft).hint_text(hint).desired_width(width));
        if !field.has_focus() && !field.lost_focus() && draft.is_empty() {
            field.request_focus();
        }
        add = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        add |= ui.small_button(tr(lang, Key::AddComment)).clicked();
        cancel = ui.small_button(tr(lang, Key::Cancel)).clicked();
    });
    if add && !draft.trim().is_empty() {
        let comment = Comment { path: path.clone(), line: *line, removed: *removed, text: draft.trim().to_string() };
        view.comments.push(comment);
        view.edits += 1;
        view.sent = false;
        view.editing = None;
    } else if cancel {
        view.editing = None;
    }
}

/// An agent's changes since a checkpoint under review (its workspace: nothing to accept, a file
/// or a hunk can be put back as it was); returns the requests and whether it was closed.
pub fn workspace_review_ui(
    ui: &mut egui::Ui,
    lang: Language,
    agent: &crate::app::AgentView,
    view: &mut ReviewView,
) -> (Vec<crate::app::Request>, bool) {
    use crate::protocol::checkpoints::CheckpointCommand;
    let Some(review) = &agent.review else { return (Vec::new(), true) };
    let name = agent.config.name.clone();
    let input = ReviewInput {
        title: trf(lang, Key::WorkspaceReviewTitle, &[("agent", &name)]),
        files: review.files.as_ref().map(|r| r.as_ref().map(Vec::as_slice).map_err(Clone::clone)),
        generation: review.generation,
        busy: agent.state == crate::app::AgentState::Busy,
        error: review.error.clone(),
        done: review.done.then(|| tr(lang, Key::DecisionReverted).to_string()),
        accept: false,
        reject: [(Key::RevertFile, Key::RevertFileHint), (Key::RevertHunk, Key::RevertHunkHint)],
        close: Key::CloseWorkspaceReview,
    };
    let (decisions, close) = review_ui(ui, lang, input, view);
    let checkpoint = review.checkpoint.clone();
    let mut requests: Vec<crate::app::Request> = Vec::new();
    for decision in decisions {
        let (path, hunk) = match decision {
            Decision::RejectFile(change) => (change.path, None),
            Decision::RejectHunk(path, hunk) => (path, Some(hunk)),
            Decision::Send(text) => {
                let agent = name.clone();
                requests.push(Command::prompt(agent, text).into());
                continue;
            }
            Decision::AcceptFile(_) | Decision::AcceptHunk(..) => continue,
        };
        let revert = CheckpointCommand::Revert { agent: name.clone(), checkpoint: checkpoint.clone(), path, hunk };
        requests.push(Command::Checkpoint(revert).into());
    }
    if close {
        requests.push(crate::app::Request::CloseReview { agent: name });
    }
    (requests, close)
}
