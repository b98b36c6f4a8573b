//! Every user-facing sentence, in English and French. `model` and `runtime` give codes and
//! data; this module turns them into words. Each key is written with both languages side by
//! side, so a missing translation does not compile, and a test checks that the placeholders of
//! both languages agree.

use crate::model::config::{Language, RuntimeConfig, RuntimeKind};
use crate::model::conversation::TurnEnd;
use crate::model::permission::Ask;
use crate::model::problem::{ProblemKind, ValueType};
use crate::protocol::{AgentState, CrashReason, HandshakeFailure, LogEntry, SpawnFailure};

mod config_doc;
pub use config_doc::config_doc;

macro_rules! strings {
    ($($key:ident => ($en:expr, $fr:expr),)*) => {
        /// A fixed string of the interface.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Key { $(#[doc = concat!("In English: “", $en, "”")] $key,)* }

        impl Key {
            /// Every key, for tests.
            pub const ALL: &'static [Key] = &[$(Key::$key,)*];
        }

        /// The string for `key` in `lang`.
        pub fn tr(lang: Language, key: Key) -> &'static str {
            match (key, lang) {
                $((Key::$key, Language::En) => $en, (Key::$key, Language::Fr) => $fr,)*
            }
        }
    };
}

strings! {
    Agents => ("Agents", "Agents"),
    Start => ("Start agent", "Démarrer l’agent"),
    Stop => ("Stop agent", "Arrêter l’agent"),
    Restart => ("Restart agent", "Redémarrer l’agent"),
    Send => ("Send", "Envoyer"),
    Cancel => ("Cancel", "Annuler"),
    StopTurn => ("Stop", "Arrêter"),
    Conversation => ("Conversation", "Conversation"),
    Log => ("Log", "Journal"),
    Permissions => ("Permissions", "Permissions"),
    RulesIntro => ("Answers remembered for {agent} in {workspace}.", "Réponses mémorisées pour {agent} dans {workspace}."),
    NoRules => ("No remembered answers yet: choose \"Always allow here\" or \"Never here\" on a permission card.", "Aucune réponse mémorisée : choisissez « Toujours autoriser ici » ou « Jamais ici » sur une demande de permission."),
    Forget => ("Forget", "Oublier"),
    Settings => ("Settings", "Réglages"),
    Files => ("Files", "Fichiers"),
    Terminal => ("Terminal", "Terminal"),
    TerminalEnded => ("The shell has ended.", "Le shell s’est terminé."),
    OpenTerminal => ("Open a terminal", "Ouvrir un terminal"),
    ShellN => ("Shell {n}", "Shell {n}"),
    Channels => ("Channels", "Canaux"),
    ChannelTo => ("You, to {to}:", "Vous, à {to} :"),
    NoAgentsFound => (
        "No agents found: none of the known ACP agents is on the PATH, and neither Zed nor a JetBrains IDE lists one.",
        "Aucun agent trouvé : aucun des agents ACP connus n'est dans le PATH, et ni Zed ni un IDE JetBrains n'en déclare."
    ),
    ChannelSidekicksTo => ("Sidekicks, to {to}:", "Sidekicks, à {to} :"),
    BySidekicks => ("Sidekicks", "Sidekicks"),
    StopAll => ("Stop all", "Tout arrêter"),
    ExitCode => ("exit code {code}", "code de sortie {code}"),
    EndedBySignal => ("ended by {signal}", "arrêté par {signal}"),
    ChannelHandOver => ("{lead} hands over to {to}", "{lead} confie la suite à {to}"),
    MergeWork => ("Merge {member}'s work", "Fusionner le travail de {member}"),
    TeamLead => ("Lead (optional)", "Responsable (facultatif)"),
    NoLead => ("none", "aucun"),
    MessageChannel => ("Message #{name} — @name for one member, else everyone — {keys}", "Message à #{name} — @nom pour un membre, sinon tout le monde — {keys}"),
    NoChannelMembers => ("No agent lists this channel in its `channels` yet.", "Aucun agent ne cite encore ce canal dans ses `channels`."),
    ChannelEmpty => ("Nothing said here yet.", "Rien n’a encore été dit ici."),
    Unread => ("new answers", "nouvelles réponses"),
    Teams => ("Teams", "Équipes"),
    NewTeam => ("New team…", "Nouvelle équipe…"),
    NewTeamTitle => ("A new team", "Une nouvelle équipe"),
    TeamName => ("Name", "Nom"),
    ProjectFolder => ("Project folder", "Dossier du projet"),
    IsolationKind => ("Each member works in", "Chaque membre travaille dans"),
    ProviderGit => ("a git worktree (detached, no branch)", "un worktree git (détaché, sans branche)"),
    ProviderCopy => ("a copy of the sources", "une copie des sources"),
    ProviderClone => ("a copy-on-write clone", "un clone copie-sur-écriture"),
    TeamMembers => ("Members (agents on this computer)", "Membres (agents sur cet ordinateur)"),
    CreateTeam => ("Create the team", "Créer l’équipe"),
    CreatingTeam => ("Making the members' copies…", "Création des copies des membres…"),
    TeamProject => ("Project: {path}", "Projet : {path}"),
    MemberWorksIn => ("works in {path}", "travaille dans {path}"),
    TeamLink => ("team {team}", "équipe {team}"),
    Refresh => ("Refresh", "Actualiser"),
    MergeAll => ("Merge all", "Tout fusionner"),
    MergeSelected => ("Merge selected", "Fusionner la sélection"),
    Discard => ("Discard", "Abandonner"),
    DiscardTeam => ("Discard the team", "Abandonner l’équipe"),
    DiscardMemberQuestion => ("Delete {member}'s copy, with any work not merged yet?", "Supprimer la copie de {member}, avec le travail pas encore fusionné ?"),
    DiscardTeamQuestion => ("Delete every member's copy, with any work not merged yet?", "Supprimer la copie de chaque membre, avec le travail pas encore fusionné ?"),
    NoChanges => ("No changes yet.", "Pas encore de changements."),
    MergedReport => ("Merged: {applied} file(s) applied to the project.", "Fusionné : {applied} fichier(s) appliqué(s) au projet."),
    ConflictsReport => ("Conflicts: nothing was applied; {member} was asked to resolve them:", "Conflits : rien n’a été appliqué ; {member} doit les résoudre :"),
    ChangeAdded => ("added", "ajouté"),
    ChangeModified => ("modified", "modifié"),
    ChangeDeleted => ("deleted", "supprimé"),
    ChangeRenamed => ("renamed from {from}", "renommé depuis {from}"),
    ChangeMode => ("mode", "droits"),
    ChangeType => ("type", "type"),
    ConflictTextKind => ("both changed the same lines", "les deux ont changé les mêmes lignes"),
    ConflictBinary => ("both changed this binary file", "les deux ont changé ce fichier binaire"),
    ConflictTooLarge => ("both changed this large file", "les deux ont changé ce gros fichier"),
    ConflictMemberDeleted => ("deleted by the member, changed in the project", "supprimé par le membre, changé dans le projet"),
    ConflictMainDeleted => ("changed by the member, deleted in the project", "changé par le membre, supprimé dans le projet"),
    ConflictKindKind => ("changed into different kinds of file", "changé en types de fichier différents"),
    ConflictFolder => ("a folder and a file meet here", "un dossier et un fichier se rencontrent ici"),
    NoDiff => ("(absent or binary)", "(absent ou binaire)"),
    TeamError => ("Team: {message}", "Équipe : {message}"),
    UnavailableNotFolder => ("the project is not a folder", "le projet n’est pas un dossier"),
    UnavailableNotGit => ("the folder is not a git repository (or git is not installed)", "le dossier n’est pas un dépôt git (ou git n’est pas installé)"),
    UnavailableNotTop => ("the folder is inside a git repository but not its top folder", "le dossier est dans un dépôt git mais n’en est pas le dossier racine"),
    UnavailableNoCommit => ("the repository has no commit yet", "le dépôt n’a encore aucun commit"),
    UnavailableNoClone => ("this filesystem cannot make copy-on-write clones (btrfs, XFS and APFS can; ext4 cannot)", "ce système de fichiers ne sait pas cloner en copie-sur-écriture (btrfs, XFS et APFS savent ; ext4 non)"),
    UnavailableOtherFs => ("the copies' folder is on another filesystem than the project", "le dossier des copies est sur un autre système de fichiers que le projet"),
    CannotUseKind => ("This kind of copy cannot be used here: {reason}", "Ce type de copie n’est pas utilisable ici : {reason}"),
    CopyGone => ("The member's copy {path} is gone.", "La copie du membre {path} a disparu."),
    NewTerminal => ("Another terminal in this folder", "Un autre terminal dans ce dossier"),
    CloseTerminal => ("Close this terminal and end everything it started", "Fermer ce terminal et arrêter tout ce qu’il a lancé"),
    TerminalClosed => ("The terminal was closed.", "Le terminal a été fermé."),
    Modified => ("modified", "modifié"),
    BinaryFile => ("This file is not text: it cannot be opened in the editor.", "Ce fichier n’est pas du texte : il ne s’ouvre pas dans l’éditeur."),
    LargeFile => ("This file is {size} KB, more than the 1 MB the editor opens.", "Ce fichier fait {size} Ko, plus que le 1 Mo que l’éditeur ouvre."),
    NewFile => ("New file", "Nouveau fichier"),
    NewFolder => ("New folder", "Nouveau dossier"),
    Rename => ("Rename", "Renommer"),
    Delete => ("Delete", "Supprimer"),
    Create => ("Create", "Créer"),
    ConfirmTrash => ("Move {name} to the trash? You can restore it from there.", "Mettre {name} à la corbeille ? Vous pourrez l’y retrouver."),
    ConfirmFinal => ("Delete {name} for good? It is in a container or sandbox, which has no trash.", "Supprimer {name} définitivement ? Il est dans un conteneur ou un bac à sable, sans corbeille."),
    EmptyFolder => ("(empty)", "(vide)"),
    OpenAFile => ("Choose a file on the left.", "Choisissez un fichier à gauche."),
    WsOutside => ("{path} is outside the workspace", "{path} est hors de l’espace de travail"),
    WsNotFound => ("{path} does not exist", "{path} n’existe pas"),
    WsExists => ("{path} already exists", "{path} existe déjà"),
    WsConflict => ("{path} changed since it was read", "{path} a changé depuis sa lecture"),
    LoginNeeded => ("The agent asks you to log in ({message}).", "L’agent vous demande de vous connecter ({message})."),
    LoginTitle => ("Log in to {agent}", "Se connecter à {agent}"),
    LoginWith => ("Log in: {method}", "Se connecter : {method}"),
    LoginInTerminal => ("Log in in a terminal: {method}", "Se connecter dans un terminal : {method}"),
    LoginKeyHint => ("Kept for this run only, in the agent's environment; never written to a file or a log.", "Gardé pour cette session seulement, dans l’environnement de l’agent ; jamais écrit dans un fichier ni un journal."),
    LoggingIn => ("Logging in…", "Connexion…"),
    LogOut => ("Log out", "Se déconnecter"),
    WsIsFolder => ("{path} is a folder, not a file", "{path} est un dossier, pas un fichier"),
    WsIsRoot => ("the workspace folder itself cannot be removed or renamed", "le dossier de l’espace de travail lui-même ne peut être supprimé ni renommé"),
    WsNotSupported => ("this workspace cannot {what}", "cet espace de travail ne sait pas {what}"),
    WsIo => ("{path}: {message}", "{path} : {message}"),
    WorkspaceError => ("Workspace: {message}", "Espace de travail : {message}"),
    Save => ("Save", "Enregistrer"),
    SaveRefused => ("Fix the errors to save.", "Corrigez les erreurs pour enregistrer."),
    SaveFailed => ("Could not save: {error}", "Enregistrement impossible : {error}"),
    Saved => ("Saved.", "Enregistré."),
    Unsaved => ("Unsaved changes.", "Modifications non enregistrées."),
    OpenFile => ("Open…", "Ouvrir…"),
    Recent => ("Recent", "Récents"),
    NoRecent => ("No recent files.", "Aucun fichier récent."),
    MissingFile => ("{path} (missing)", "{path} (introuvable)"),
    ChangedOnDisk => ("The file changed on disk while you were editing it.", "Le fichier a changé sur le disque pendant que vous le modifiiez."),
    TakeTheirs => ("Take their version", "Prendre leur version"),
    KeepMine => ("Keep mine", "Garder la mienne"),
    FindAgents => ("Agents installed on this computer", "Agents installés sur cet ordinateur"),
    Search => ("Search", "Chercher"),
    FromZed => ("from Zed's settings", "des réglages de Zed"),
    FromJetBrains => ("from JetBrains' acp.json", "de l’acp.json de JetBrains"),
    AlreadyAdded => ("already in the config", "déjà dans la configuration"),
    AddToConfig => ("Add", "Ajouter"),
    ComposerHint => ("Message {agent} — {keys}", "Message à {agent} — {keys}"),
    SendWithEnter => ("Enter to send, Shift+Enter for a new line", "Entrée pour envoyer, Maj+Entrée pour aller à la ligne"),
    SendWithCtrlEnter => ("Ctrl+Enter to send, Enter for a new line", "Ctrl+Entrée pour envoyer, Entrée pour aller à la ligne"),
    NoAgents => ("No agents in this config file. Add an [[agent]] entry.", "Aucun agent dans ce fichier de configuration. Ajoutez une entrée [[agent]]."),
    PickAgent => ("Choose an agent on the left to talk to it.", "Choisissez un agent à gauche pour lui parler."),
    EmptyConversation => ("No messages yet. Say hello!", "Aucun message pour l’instant. Dites bonjour !"),
    TryAsking => ("Things to ask (click one to start from it):", "Des choses à demander (cliquez pour partir de l’une d’elles) :"),
    TryExplain => ("Explain how this project is organised.", "Explique comment ce projet est organisé."),
    TryPlan => ("Make a plan to add tests for the least tested module.", "Fais un plan pour tester le module le moins testé."),
    TryFix => ("Find and fix a bug in the last commit.", "Trouve et corrige un bogue du dernier commit."),
    TryCommands => ("Its commands: {commands}", "Ses commandes : {commands}"),
    TipSlash => ("/ in the message lists the agent's commands.", "/ dans le message liste les commandes de l’agent."),
    TipMention => ("@ names a file or folder of the workspace; images can be pasted or dropped.", "@ désigne un fichier ou un dossier de l’espace de travail ; on peut coller ou déposer des images."),
    TipPalette => ("Ctrl+K finds every action; Ctrl+Shift+F searches every conversation.", "Ctrl+K trouve toutes les actions ; Ctrl+Maj+F cherche dans toutes les conversations."),
    TipStop => ("Esc in the message stops the agent's turn.", "Échap dans le message arrête le tour de l’agent."),
    EmptyLog => ("Nothing written to stderr yet.", "Rien d’écrit sur stderr pour l’instant."),
    ConfigFile => ("Config: {path}", "Configuration : {path}"),
    NoProblems => ("no problems", "aucun problème"),
    ProblemCount => ("{count} problem(s)", "{count} problème(s)"),
    ProblemsTitle => ("Problems in the config file", "Problèmes dans le fichier de configuration"),
    KeptLastGood => ("The last valid config stays in force until these are fixed.", "La dernière configuration valide reste en vigueur jusqu’à leur correction."),
    StateStopped => ("stopped", "arrêté"),
    StateStarting => ("starting", "démarrage"),
    StateIdle => ("idle", "prêt"),
    StateBusy => ("busy", "occupé"),
    StateStopping => ("stopping", "arrêt en cours"),
    StateCrashed => ("crashed", "planté"),
    WhereLocal => ("local", "local"),
    WhereContainer => ("container {name}", "conteneur {name}"),
    WhereSandbox => ("sandbox {name}", "bac à sable {name}"),
    WherePod => ("pod {name}", "pod {name}"),
    You => ("You", "Vous"),
    ChooseFolder => ("Choose…", "Choisir…"),
    AboutTitle => ("About Sidekicks", "À propos de Sidekicks"),
    AboutProtocol => ("Speaks {protocol}", "Parle {protocol}"),
    AboutNotStarted => ("not started yet", "pas encore démarré"),
    StatusRunning => ("agents running: {running}, working: {busy}", "agents lancés : {running}, au travail : {busy}"),
    StatusBranch => ("branch {branch}", "branche {branch}"),
    StatusContext => ("context {used} / {size} ({percent} %)", "contexte {used} / {size} ({percent} %)"),
    CopyMessage => ("Copy", "Copier"),
    EditMessage => ("Edit", "Modifier"),
    EditHint => ("Put this text in the composer, to change and send again", "Mettre ce texte dans la zone de saisie, pour le modifier et l’envoyer à nouveau"),
    CancelQueued => ("Cancel", "Annuler"),
    Retry => ("Retry", "Réessayer"),
    RetryHint => ("Send your last message again", "Renvoyer votre dernier message"),
    System => ("Sidekicks", "Sidekicks"),
    Thinking => ("Thinking", "Réflexion"),
    CrashExited => ("The agent exited with code {code}.", "L’agent s’est terminé avec le code {code}."),
    CrashSignaled => ("The agent was ended by signal {signal}.", "L’agent a été arrêté par le signal {signal}."),
    CrashSpawn => ("The agent could not be started: {message}", "Impossible de démarrer l’agent : {message}"),
    StateCannotStart => ("cannot start", "ne démarre pas"),
    CrashHandshake => ("The agent did not complete the ACP handshake: {message}", "L’agent n’a pas terminé la poignée de main ACP : {message}"),
    PromptCancelling => ("Cancelling the turn… press Ctrl+C again to stop the agent at once.", "Annulation du tour… appuyez de nouveau sur Ctrl+C pour arrêter l’agent tout de suite."),
    BigTextPlain => ("Long message ({size}): shown as plain text.", "Message long ({size}) : affiché en texte brut."),
    ShowMore => ("Show more ({left} left)", "Afficher la suite (encore {left})"),
    Megabytes => ("MB", "Mo"),
    ShowAll => ("Show all", "Tout afficher"),
    LastStderr => ("Last lines on stderr:", "Dernières lignes sur stderr :"),
    EndTurn => ("", ""),
    EndMaxTokens => ("Stopped: the agent reached its token limit.", "Arrêt : l’agent a atteint sa limite de jetons."),
    EndMaxTurnRequests => ("Stopped: the agent reached its limit of requests for one turn.", "Arrêt : l’agent a atteint sa limite de requêtes pour un tour."),
    EndRefusal => ("The agent refused to answer.", "L’agent a refusé de répondre."),
    EndCancelled => ("Cancelled.", "Annulé."),
    EndAgentExited => ("The agent stopped during this answer.", "L’agent s’est arrêté pendant cette réponse."),
    SpawnNotFound => ("program not found: {program}", "programme introuvable : {program}"),
    SpawnNoFolder => ("the workspace folder {path} does not exist", "le dossier de travail {path} n’existe pas"),
    SpawnNotSupported => ("the {runtime} runtime cannot start agents yet", "l’environnement {runtime} ne sait pas encore lancer d’agents"),
    SpawnToolMissing => ("{tool} is not installed; install it to run agents with runtime \"{runtime}\", or change this agent's runtime", "{tool} n’est pas installé ; installez-le pour lancer des agents avec l’environnement « {runtime} », ou changez l’environnement de cet agent"),
    SpawnNoContainer => ("there is no container named {name}; create it, or fix the name in the config", "aucun conteneur ne s’appelle {name} ; créez-le, ou corrigez son nom dans la configuration"),
    SpawnContainerStopped => ("the container {name} is not running; start it (docker start {name})", "le conteneur {name} n’est pas démarré ; démarrez-le (docker start {name})"),
    SpawnOther => ("could not start {program}: {message}", "impossible de lancer {program} : {message}"),
    HandshakeTimeout => ("no answer to {step} within {seconds} s", "pas de réponse à {step} en {seconds} s"),
    HandshakeError => ("{step}: {message}", "{step} : {message}"),
    HandshakeVersion => ("the agent speaks ACP version {version}; Sidekicks speaks version 1", "l’agent parle la version {version} d’ACP ; Sidekicks parle la version 1"),
    LogNotAcp => ("stdout (not ACP): {line}", "stdout (hors ACP) : {line}"),
    LogLongLine => ("skipped a line of more than {mb} MB on stdout: {start}…", "ligne de plus de {mb} Mo ignorée sur stdout : {start}…"),
    LogOtherSession => ("ignored {method} for session {session}, which is not this agent's", "{method} ignoré pour la session {session}, qui n’est pas celle de cet agent"),
    LogUnknownToolCall => ("ignored an update for tool call {id}, which was never announced", "mise à jour ignorée pour l’appel d’outil {id}, jamais annoncé"),
    LogBadUpdate => ("skipped a session/update that does not parse ({error}): {update}", "session/update illisible ignorée ({error}) : {update}"),
    EndFailed => ("The turn failed: {message}", "Le tour a échoué : {message}"),
    Syntax => ("TOML syntax: {message}", "Syntaxe TOML : {message}"),
    Unreadable => ("Cannot read {path}: {message}", "Impossible de lire {path} : {message}"),
    UnknownKey => ("Unknown key `{key}`.", "Clé inconnue « {key} »."),
    UnknownKeySuggest => ("Unknown key `{key}`; did you mean `{suggestion}`?", "Clé inconnue « {key} » ; vouliez-vous dire « {suggestion} » ?"),
    MissingKey => ("Missing key `{key}`.", "Clé manquante « {key} »."),
    WrongType => ("`{key}` must be {expected}, not {found}.", "« {key} » doit être {expected}, pas {found}."),
    Empty => ("`{key}` must not be empty.", "« {key} » ne doit pas être vide."),
    OutOfRange => ("`{key}` must be between {min} and {max}.", "« {key} » doit être entre {min} et {max}."),
    DuplicateAgent => ("Another agent is already named \"{name}\".", "Un autre agent s’appelle déjà « {name} »."),
    DuplicateChannel => ("Another channel is already named \"{name}\".", "Un autre canal s’appelle déjà « {name} »."),
    MissingFolder => ("The workspace folder {path} does not exist.", "Le dossier de travail {path} n’existe pas."),
    UnknownRuntime => ("Unknown runtime type \"{found}\"; use local, container, sbx, podman or kubectl.", "Type d’environnement inconnu « {found} » ; utilisez local, container, sbx, podman ou kubectl."),
    RuntimeNeeds => ("Runtime \"{kind}\" needs `{key}`.", "L’environnement « {kind} » demande « {key} »."),
    RuntimeIgnores => ("`{key}` does not apply to runtime \"{kind}\".", "« {key} » ne s’applique pas à l’environnement « {kind} »."),
    DuplicateMcp => ("Another [[mcp]] is already named \"{name}\".", "Un autre [[mcp]] s’appelle déjà « {name} »."),
    McpNeeds => ("An MCP server of type \"{transport}\" needs `{key}`.", "Un serveur MCP de type « {transport} » demande « {key} »."),
    McpIgnores => ("`{key}` does not apply to an MCP server of type \"{transport}\".", "« {key} » ne s’applique pas à un serveur MCP de type « {transport} »."),
    UnknownMcpType => ("Unknown MCP server type \"{found}\"; use stdio, http or sse.", "Type de serveur MCP inconnu « {found} » ; utilisez stdio, http ou sse."),
    UnknownAgent => ("No [[agent]] is named \"{name}\".", "Aucun [[agent]] ne s’appelle « {name} »."),
    UnknownChannel => ("No [[channel]] is named \"{name}\".", "Aucun [[channel]] ne s’appelle « {name} »."),
    InvalidEnvName => ("\"{name}\" is not a valid environment variable name (letters, digits and _, not starting with a digit).", "« {name} » n’est pas un nom de variable d’environnement valide (lettres, chiffres et _, sans chiffre au début)."),
    UnknownLanguage => ("Unknown language \"{found}\"; use \"en\" or \"fr\".", "Langue inconnue « {found} » ; utilisez « en » ou « fr »."),
    UnknownSendKey => ("Unknown key \"{found}\"; use \"enter\" or \"ctrl+enter\".", "Touche inconnue « {found} » ; utilisez « enter » ou « ctrl+enter »."),
    UnknownTheme => ("Unknown theme \"{found}\"; use \"system\", \"light\" or \"dark\".", "Thème inconnu « {found} » ; utilisez « system », « light » ou « dark »."),
    TypeString => ("a string", "une chaîne"),
    TypeInteger => ("a whole number", "un nombre entier"),
    TypeBoolean => ("true or false", "true ou false"),
    TypeTable => ("a table", "une table"),
    TypeStringArray => ("a list of strings", "une liste de chaînes"),
    TypeTableArray => ("a list of tables ([[…]])", "une liste de tables ([[…]])"),
    FoundString => ("a string", "une chaîne"),
    FoundInteger => ("a whole number", "un nombre entier"),
    FoundFloat => ("a decimal number", "un nombre décimal"),
    FoundBoolean => ("true/false", "vrai/faux"),
    FoundDatetime => ("a date", "une date"),
    FoundArray => ("a list", "une liste"),
    FoundTable => ("a table", "une table"),
    CheckOk => ("{path}: no problems.", "{path} : aucun problème."),
    EnvReadableByOthers => ("This file holds environment values ({name}, …) and other users of this computer can read it: run chmod 600 on it.", "Ce fichier contient des valeurs d’environnement ({name}, …) et les autres utilisateurs de cet ordinateur peuvent le lire : faites chmod 600 dessus."),
    CommandNotFound => ("The command \"{command}\" was not found on PATH; this agent will not start.", "La commande « {command} » est introuvable dans le PATH ; cet agent ne démarrera pas."),
    Warning => ("warning", "avertissement"),
    Queued => ("queued", "en attente"),
    NotSent => ("not sent", "non envoyé"),
    NoticeSettingRefused => ("{agent} did not take the setting {setting}: {message}", "{agent} n’a pas pris le réglage {setting} : {message}"),
    NoticeRestored => ("{agent}'s workspace is back as it was before that turn.", "L’espace de travail de {agent} est revenu à son état d’avant ce tour."),
    NoticeRestoreFailed => ("The workspace could not be restored: {message}", "L’espace de travail n’a pas pu être restauré : {message}"),
    UndoRestore => ("Undo", "Annuler"),
    MovedToTrash => ("{path} went to the trash.", "{path} est parti à la corbeille."),
    UndoDelete => ("Undo", "Annuler"),
    CommitAsBranch => ("Commit as branch…", "Commit dans une branche…"),
    CommitAsBranchHint => ("Make this member's work a branch of the project (your checkout is not touched)", "Faire du travail de ce membre une branche du projet (votre copie de travail n’est pas touchée)"),
    BranchName => ("Branch", "Branche"),
    BranchMessage => ("Message", "Message"),
    MakeBranch => ("Make the branch", "Créer la branche"),
    BranchMade => ("Branch {branch} made (commit {commit}).", "Branche {branch} créée (commit {commit})."),
    UndoRestoreHint => ("Bring back the files as they were just before the restore", "Remettre les fichiers tels qu’ils étaient juste avant le retour"),
    RestoreTurn => ("Restore", "Revenir"),
    RestoreTurnHint => ("Restore the workspace to before this turn (files changed since are replaced; the restore can be undone)", "Remettre l’espace de travail dans l’état d’avant ce tour (les fichiers changés depuis sont remplacés ; le retour peut être annulé)"),
    RestoreTurnBusy => ("Stop the turn first to restore the workspace", "Arrêtez d’abord le tour pour revenir en arrière"),
    Mode => ("Mode", "Mode"),
    SettingNotOffered => ("The agent does not offer \"{value}\" (it offers: {offered}); it answers with its own.", "L’agent ne propose pas « {value} » (il propose : {offered}) ; il répond avec le sien."),
    NoticeNewSession => ("{agent} started a new session: it no longer remembers the beginning of this conversation.", "{agent} a ouvert une nouvelle session : il ne se souvient plus du début de cette conversation."),
    NoticeLoop => ("{agent} is going round in circles: {count} tools failed in a row.", "{agent} tourne en rond : {count} outils ont échoué d’affilée."),
    NoticeUnresponsive => ("{agent} did not stop when asked, so Sidekicks stopped it. The next message starts it again.", "{agent} ne s’est pas arrêté quand on le lui a demandé : Sidekicks l’a arrêté. Le prochain message le redémarre."),
    NoticeExited => ("{agent} stopped: {message}", "{agent} s’est arrêté : {message}"),
    NoticeTranscript => ("{agent} cannot reopen this earlier conversation: it starts afresh.", "{agent} ne peut pas rouvrir cette conversation : il repart de zéro."),
    NoticeThreadFailed => ("{agent} could not open this thread's session ({message}); it was stopped, and your next message starts it again here.", "{agent} n’a pas pu ouvrir la session de ce fil ({message}) ; il a été arrêté, et votre prochain message le redémarre ici."),
    NewThread => ("New thread", "Nouveau fil"),
    Threads => ("Threads", "Fils"),
    UntitledThread => ("New thread", "Nouveau fil"),
    RenameThread => ("Rename", "Renommer"),
    DeleteThread => ("Delete", "Supprimer"),
    DeleteThreadConfirm => ("Delete the thread “{title}” and its messages?", "Supprimer le fil « {title} » et ses messages ?"),
    AgentSessions => ("{agent}'s sessions…", "Sessions de {agent}…"),
    AgentSessionsTitle => ("Sessions {agent} keeps", "Sessions que garde {agent}"),
    OpenSession => ("Open", "Ouvrir"),
    SessionShown => ("(a thread)", "(un fil)"),
    NoAgentSessions => ("{agent} lists no sessions in this folder.", "{agent} n’a aucune session dans ce dossier."),
    SessionsNotRunning => ("Start {agent} to list its sessions.", "Démarrez {agent} pour lister ses sessions."),
    SessionsUnsupported => ("{agent} does not list its sessions.", "{agent} ne liste pas ses sessions."),
    SessionsFailed => ("{agent} could not list its sessions: {message}", "{agent} n’a pas pu lister ses sessions : {message}"),
    Untitled => ("(untitled)", "(sans titre)"),
    Close => ("Close", "Fermer"),
    RemoveAttachment => ("Do not send it", "Ne pas l’envoyer"),
    NoImages => ("{agent} does not take images: the message would be refused.", "{agent} ne prend pas d’images : le message serait refusé."),
    AttachFiles => ("Attach…", "Joindre…"),
    AttachHint => ("Images, or files and folders of the workspace (also: drop them here, paste an image, type @)", "Images, ou fichiers et dossiers de l’espace de travail (ou : les déposer ici, coller une image, taper @)"),
    Dismiss => ("Dismiss", "Masquer"),
    ListingFiles => ("Listing the workspace's files…", "Liste des fichiers de l’espace de travail…"),
    McpHint => ("MCP servers of the config given to this agent's session", "Serveurs MCP de la configuration donnés à la session de cet agent"),
    McpNotTaken => ("{agent} does not take {transport} MCP servers: not given", "{agent} ne prend pas les serveurs MCP {transport} : non donné"),
    ElicitAsks => ("{agent} asks for this:", "{agent} demande ceci :"),
    Submit => ("Submit", "Envoyer"),
    Decline => ("Decline", "Refuser"),
    OpenPage => ("Open the page", "Ouvrir la page"),
    WaitingForPage => ("Waiting for {agent}: finish on the page ({url})", "En attente de {agent} : terminez sur la page ({url})"),
    FieldMissing => ("Required", "Obligatoire"),
    FieldNotANumber => ("Not a number (or not a whole one)", "Pas un nombre (ou pas un nombre entier)"),
    FieldNotAnOption => ("Pick one of the options", "Choisissez une des options"),
    FieldBetween => ("Between {min} and {max}", "Entre {min} et {max}"),
    FieldAtLeast => ("At least {min}", "Au moins {min}"),
    FieldAtMost => ("At most {max}", "Au plus {max}"),
    FieldUnknown => ("A kind of field Sidekicks does not know: it is not sent", "Un type de champ que Sidekicks ne connaît pas : il n’est pas envoyé"),
    NeedsYou => ("needs you", "vous attend"),
    NeedsPermissions => ("permissions waiting: {count}", "permissions en attente : {count}"),
    NeedsQuestions => ("questions waiting: {count}", "questions en attente : {count}"),
    NeedsLogin => ("a login", "une connexion"),
    AgentFailed => ("failed: crashed, a turn failed, or going round in circles", "en échec : arrêt brutal, tour échoué, ou tourne en rond"),
    ChannelNeedsYou => ("members need you: {count}", "des membres vous attendent : {count}"),
    TeamConflicts => ("merges that conflicted: {count}", "fusions en conflit : {count}"),
    Inbox => ("Needs you", "Vous attend"),
    InboxEntry => ("Needs you ({count})", "Vous attend ({count})"),
    InboxEmpty => ("Nothing waits for you.", "Rien ne vous attend."),
    OpenThere => ("Open", "Ouvrir"),
    NotNow => ("Not now", "Pas maintenant"),
    InboxLogin => ("{agent} asks you to log in: open it to choose how.", "{agent} vous demande de vous connecter : ouvrez-le pour choisir comment."),
    InboxConflict => ("{member}'s merge conflicted: {files}", "La fusion de {member} est en conflit : {files}"),
    PaletteAgent => ("Go to {agent}", "Aller à {agent}"),
    PaletteChannel => ("Go to channel #{channel}", "Aller au canal #{channel}"),
    PaletteTeam => ("Go to team {team}", "Aller à l’équipe {team}"),
    PaletteThread => ("Switch to thread “{title}”", "Passer au fil « {title} »"),
    PaletteNewThread => ("New thread with {agent}", "Nouveau fil avec {agent}"),
    PaletteStart => ("Start {agent}", "Démarrer {agent}"),
    PalettePage => ("{agent}: {page}", "{agent} : {page}"),
    PaletteStop => ("Stop {agent}", "Arrêter {agent}"),
    PaletteRestart => ("Restart {agent}", "Redémarrer {agent}"),
    PaletteFocus => ("Focus the composer", "Aller à la zone de saisie"),
    PaletteOpenConfig => ("Open a config file…", "Ouvrir un fichier de configuration…"),
    PaletteHint => ("Type an action…", "Tapez une action…"),
    PaletteNothing => ("No action matches.", "Aucune action ne correspond."),
    FindHint => ("Find in the conversation", "Chercher dans la conversation"),
    FindNone => ("no match", "aucun résultat"),
    SearchEverywhere => ("Search every conversation", "Chercher dans toutes les conversations"),
    SearchHint => ("Words to find in every thread of every agent", "Mots à trouver dans tous les fils de tous les agents"),
    SearchEmpty => ("Type words: every stored thread of this config is searched.", "Tapez des mots : tous les fils enregistrés de cette configuration sont parcourus."),
    SearchNone => ("Nothing found.", "Rien trouvé."),
    SearchFailed => ("The search failed: {error}", "La recherche a échoué : {error}"),
    SearchCount => ("Found in {count} messages (newest threads first)", "Trouvé dans {count} messages (fils récents d’abord)"),
    SearchThread => ("thread {id}", "fil {id}"),
    PaletteSearch => ("Search every conversation", "Chercher dans toutes les conversations"),
    NoteNeedsYou => ("{agent} needs you", "{agent} vous attend"),
    NoteAsks => ("Allow “{tool}”?", "Autoriser « {tool} » ?"),
    NoteLogin => ("It asks you to log in.", "Il demande de vous connecter."),
    NoteFinished => ("{agent} finished", "{agent} a terminé"),
    NoteFailed => ("{agent}’s turn failed", "Le tour de {agent} a échoué"),
    NoteCrashed => ("{agent} crashed", "{agent} s’est arrêté brutalement"),
    NoteConflict => ("Merge conflict in {team}", "Conflit de fusion dans {team}"),
    FindCount => ("{n} of {of}", "{n} sur {of}"),
    FindPrevious => ("Previous", "Précédent"),
    FindNext => ("Next", "Suivant"),
    ClickToEnlarge => ("click to enlarge", "cliquer pour agrandir"),
    SentWithMessage => ("Sent with the message:", "Envoyé avec le message :"),
    JustNow => ("now", "à l’instant"),
    SendTranscript => ("Send a transcript with my next message", "Envoyer une transcription avec mon prochain message"),
    TranscriptAttached => ("A transcript of the earlier conversation goes with this message.", "Une transcription de la conversation précédente part avec ce message."),
    DontSendTranscript => ("Don't send it", "Ne pas l’envoyer"),
    StopAgent => ("Stop the agent", "Arrêter l’agent"),
    AllowOnce => ("Allow once", "Autoriser une fois"),
    AllowAlways => ("Always allow here", "Toujours autoriser ici"),
    RejectAlways => ("Never here", "Jamais ici"),
    RejectOnce => ("Reject once", "Refuser une fois"),
    AnsweredAllowOnce => ("Allowed once", "Autorisé une fois"),
    AnsweredAllowAlways => ("Always allowed here", "Toujours autorisé ici"),
    AnsweredRejectAlways => ("Never allowed here", "Jamais autorisé ici"),
    AnsweredRejectOnce => ("Rejected", "Refusé"),
    AnsweredOther => ("chose “{name}”", "choix : « {name} »"),
    AnsweredCancelled => ("Cancelled", "Annulé"),
    AskRunHere => ("{agent} wants to run a command on your computer", "{agent} veut lancer une commande sur votre ordinateur"),
    AskRunContainer => ("{agent} wants to run a command in its container {name}", "{agent} veut lancer une commande dans son conteneur {name}"),
    AskRunSandbox => ("{agent} wants to run a command in its sandbox {name}", "{agent} veut lancer une commande dans son bac à sable {name}"),
    AskRunPod => ("{agent} wants to run a command in its pod {name}", "{agent} veut lancer une commande dans son pod {name}"),
    AskEdit => ("{agent} wants to edit {path}", "{agent} veut modifier {path}"),
    AskDelete => ("{agent} wants to delete {path}", "{agent} veut supprimer {path}"),
    AskMove => ("{agent} wants to move {path}", "{agent} veut déplacer {path}"),
    AskRead => ("{agent} wants to read {path}", "{agent} veut lire {path}"),
    AskFetch => ("{agent} wants to fetch {what}", "{agent} veut télécharger {what}"),
    AskOther => ("{agent} asks permission: {title}", "{agent} demande la permission : {title}"),
    Danger => ("May destroy data: {what}", "Peut détruire des données : {what}"),
    ToolPending => ("pending", "en attente"),
    ToolRunning => ("running", "en cours"),
    ToolDone => ("done", "terminé"),
    ToolFailed => ("failed", "échec"),
    ToolCancelled => ("cancelled", "annulé"),
    Input => ("Input", "Entrée"),
    Output => ("Output", "Sortie"),
    Plan => ("Plan", "Plan"),
    Usage => ("Context: {used} / {size} tokens", "Contexte : {used} / {size} jetons"),
    SessionCost => ("Cost: {cost}", "Coût : {cost}"),
    SessionCostTotal => ("Cost: {cost} (this run: {total})", "Coût : {cost} (depuis le lancement : {total})"),
    JumpToBottom => ("Jump to the latest", "Aller au plus récent"),
}

/// `tr` with `{name}` placeholders replaced.
pub fn trf(lang: Language, key: Key, args: &[(&str, &str)]) -> String {
    let mut text = tr(lang, key).to_string();
    for (name, value) in args {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}

fn type_name(lang: Language, t: ValueType) -> &'static str {
    let key = match t {
        ValueType::String => Key::TypeString,
        ValueType::Integer => Key::TypeInteger,
        ValueType::Boolean => Key::TypeBoolean,
        ValueType::Table => Key::TypeTable,
        ValueType::StringArray => Key::TypeStringArray,
        ValueType::TableArray => Key::TypeTableArray,
    };
    tr(lang, key)
}

/// The TOML type name the loader reports, in words.
fn found_name(lang: Language, found: &str) -> String {
    let key = match found {
        "string" => Key::FoundString,
        "integer" => Key::FoundInteger,
        "float" => Key::FoundFloat,
        "boolean" => Key::FoundBoolean,
        "datetime" => Key::FoundDatetime,
        "array" => Key::FoundArray,
        "table" => Key::FoundTable,
        other => return other.to_string(),
    };
    tr(lang, key).to_string()
}

/// A config problem in words.
pub fn problem_text(lang: Language, kind: &ProblemKind) -> String {
    use ProblemKind as P;
    match kind {
        P::Unreadable { path, message } => trf(lang, Key::Unreadable, &[("path", path), ("message", message)]),
        P::Syntax { message } => {
            let message = match lang {
                Language::Fr => crate::i18n_toml::french(message).unwrap_or_else(|| format!("« {message} »")),
                Language::En => message.clone(),
            };
            trf(lang, Key::Syntax, &[("message", &message)])
        }
        P::UnknownKey { key, suggestion: None } => trf(lang, Key::UnknownKey, &[("key", key)]),
        P::UnknownKey { key, suggestion: Some(s) } => {
            trf(lang, Key::UnknownKeySuggest, &[("key", key), ("suggestion", s)])
        }
        P::MissingKey { key } => trf(lang, Key::MissingKey, &[("key", key)]),
        P::WrongType { key, expected, found } => trf(
            lang,
            Key::WrongType,
            &[("key", key), ("expected", type_name(lang, *expected)), ("found", &found_name(lang, found))],
        ),
        P::Empty { key } => trf(lang, Key::Empty, &[("key", key)]),
        P::OutOfRange { key, min, max } => {
            trf(lang, Key::OutOfRange, &[("key", key), ("min", &min.to_string()), ("max", &max.to_string())])
        }
        P::DuplicateAgent { name } => trf(lang, Key::DuplicateAgent, &[("name", name)]),
        P::DuplicateChannel { name } => trf(lang, Key::DuplicateChannel, &[("name", name)]),
        P::MissingFolder { path } => trf(lang, Key::MissingFolder, &[("path", path)]),
        P::UnknownRuntime { found } => trf(lang, Key::UnknownRuntime, &[("found", found)]),
        P::RuntimeNeeds { kind, key } => trf(lang, Key::RuntimeNeeds, &[("kind", kind.code()), ("key", key)]),
        P::RuntimeIgnores { kind, key } => trf(lang, Key::RuntimeIgnores, &[("kind", kind.code()), ("key", key)]),
        P::DuplicateMcp { name } => trf(lang, Key::DuplicateMcp, &[("name", name)]),
        P::McpNeeds { transport, key } => trf(lang, Key::McpNeeds, &[("transport", transport), ("key", key)]),
        P::McpIgnores { transport, key } => trf(lang, Key::McpIgnores, &[("transport", transport), ("key", key)]),
        P::UnknownMcpType { found } => trf(lang, Key::UnknownMcpType, &[("found", found)]),
        P::UnknownAgent { name } => trf(lang, Key::UnknownAgent, &[("name", name)]),
        P::UnknownChannel { name } => trf(lang, Key::UnknownChannel, &[("name", name)]),
        P::InvalidEnvName { name } => trf(lang, Key::InvalidEnvName, &[("name", name)]),
        P::UnknownLanguage { found } => trf(lang, Key::UnknownLanguage, &[("found", found)]),
        P::UnknownSendKey { found } => trf(lang, Key::UnknownSendKey, &[("found", found)]),
        P::UnknownTheme { found } => trf(lang, Key::UnknownTheme, &[("found", found)]),
        P::CommandNotFound { command } => trf(lang, Key::CommandNotFound, &[("command", command)]),
        P::EnvReadableByOthers { name } => trf(lang, Key::EnvReadableByOthers, &[("name", name)]),
    }
}

/// The short state shown next to an agent.
pub fn state_text(lang: Language, state: &AgentState) -> &'static str {
    let key = match state {
        AgentState::Stopped => Key::StateStopped,
        AgentState::Starting => Key::StateStarting,
        AgentState::Idle => Key::StateIdle,
        AgentState::Busy => Key::StateBusy,
        AgentState::Stopping => Key::StateStopping,
        // It never ran: "crashed" would say otherwise.
        AgentState::Crashed(report) if matches!(report.reason, CrashReason::Spawn(_)) => Key::StateCannotStart,
        AgentState::Crashed(_) => Key::StateCrashed,
    };
    tr(lang, key)
}

/// Words for a team error.
pub fn team_error_text(lang: Language, error: &crate::protocol::teams::TeamError) -> String {
    use crate::protocol::teams::{TeamError as T, Unavailable as U};
    match error {
        T::Unavailable { reason } => {
            let reason = match reason {
                U::NotAFolder => tr(lang, Key::UnavailableNotFolder).to_string(),
                U::NotGit => tr(lang, Key::UnavailableNotGit).to_string(),
                U::NotTopFolder => tr(lang, Key::UnavailableNotTop).to_string(),
                U::NoCommit => tr(lang, Key::UnavailableNoCommit).to_string(),
                U::NoClone => tr(lang, Key::UnavailableNoClone).to_string(),
                U::OtherFilesystem => tr(lang, Key::UnavailableOtherFs).to_string(),
                U::CloneFailed(message) => message.clone(),
            };
            trf(lang, Key::CannotUseKind, &[("reason", &reason)])
        }
        T::CopyGone(path) => trf(lang, Key::CopyGone, &[("path", path)]),
        // Git's and the system's own words.
        other => trf(lang, Key::TeamError, &[("message", &other.to_string())]),
    }
}

/// Why an agent crashed, in words.
pub fn crash_text(lang: Language, reason: &CrashReason) -> String {
    match reason {
        CrashReason::Exited { code } => trf(lang, Key::CrashExited, &[("code", &code.to_string())]),
        CrashReason::Signaled { signal } => trf(lang, Key::CrashSignaled, &[("signal", &signal.to_string())]),
        CrashReason::Spawn(failure) => {
            let why = spawn_text(lang, failure);
            trf(lang, Key::CrashSpawn, &[("message", &why)])
        }
        CrashReason::Handshake(failure) => {
            let why = handshake_text(lang, failure);
            trf(lang, Key::CrashHandshake, &[("message", &why)])
        }
    }
}

fn spawn_text(lang: Language, failure: &SpawnFailure) -> String {
    match failure {
        SpawnFailure::NotFound { program } => trf(lang, Key::SpawnNotFound, &[("program", program)]),
        SpawnFailure::MissingFolder { path } => trf(lang, Key::SpawnNoFolder, &[("path", path)]),
        SpawnFailure::NotSupported { runtime } => trf(lang, Key::SpawnNotSupported, &[("runtime", runtime)]),
        SpawnFailure::ToolMissing { tool, runtime } => {
            trf(lang, Key::SpawnToolMissing, &[("tool", tool), ("runtime", runtime)])
        }
        SpawnFailure::ContainerMissing { name } => trf(lang, Key::SpawnNoContainer, &[("name", name)]),
        SpawnFailure::ContainerStopped { name } => trf(lang, Key::SpawnContainerStopped, &[("name", name)]),
        SpawnFailure::Other { program, message } => {
            trf(lang, Key::SpawnOther, &[("program", program), ("message", message)])
        }
    }
}

fn handshake_text(lang: Language, failure: &HandshakeFailure) -> String {
    match failure {
        HandshakeFailure::Timeout { step, seconds } => {
            trf(lang, Key::HandshakeTimeout, &[("step", step), ("seconds", &seconds.to_string())])
        }
        HandshakeFailure::Error { step, message } => {
            trf(lang, Key::HandshakeError, &[("step", step), ("message", message)])
        }
        HandshakeFailure::Version { version } => trf(lang, Key::HandshakeVersion, &[("version", version)]),
        HandshakeFailure::AuthRequired { message, .. } => trf(lang, Key::LoginNeeded, &[("message", message)]),
    }
}

/// A workspace error, in words.
pub fn workspace_error_text(lang: Language, error: &crate::protocol::workspace::WorkspaceError) -> String {
    use crate::protocol::workspace::WorkspaceError as W;
    match error {
        W::Outside { path } => trf(lang, Key::WsOutside, &[("path", path)]),
        W::NotFound { path } => trf(lang, Key::WsNotFound, &[("path", path)]),
        W::Exists { path } => trf(lang, Key::WsExists, &[("path", path)]),
        W::Conflict { path, .. } => trf(lang, Key::WsConflict, &[("path", path)]),
        W::IsFolder { path } => trf(lang, Key::WsIsFolder, &[("path", path)]),
        W::IsRoot => tr(lang, Key::WsIsRoot).to_string(),
        W::NotSupported { what } => trf(lang, Key::WsNotSupported, &[("what", what)]),
        W::Io { path, message } => trf(lang, Key::WsIo, &[("path", path), ("message", message)]),
    }
}

/// A line of an agent's Log, in words.
pub fn log_text(lang: Language, entry: &LogEntry) -> String {
    match entry {
        LogEntry::Stderr(line) => line.clone(),
        LogEntry::NotAcp(line) => trf(lang, Key::LogNotAcp, &[("line", line)]),
        LogEntry::LongLine { megabytes, start } => {
            trf(lang, Key::LogLongLine, &[("mb", &megabytes.to_string()), ("start", start)])
        }
        LogEntry::BadUpdate { error, update } => trf(lang, Key::LogBadUpdate, &[("error", error), ("update", update)]),
        LogEntry::UnknownToolCall { id } => trf(lang, Key::LogUnknownToolCall, &[("id", id)]),
        LogEntry::OtherSession { session, method } => {
            trf(lang, Key::LogOtherSession, &[("session", session), ("method", method)])
        }
    }
}

/// How a turn ended, in words (empty for a normal end).
pub fn turn_end_text(lang: Language, end: &TurnEnd) -> String {
    match end {
        TurnEnd::EndTurn => tr(lang, Key::EndTurn).to_string(),
        TurnEnd::MaxTokens => tr(lang, Key::EndMaxTokens).to_string(),
        TurnEnd::MaxTurnRequests => tr(lang, Key::EndMaxTurnRequests).to_string(),
        TurnEnd::Refusal => tr(lang, Key::EndRefusal).to_string(),
        TurnEnd::Cancelled => tr(lang, Key::EndCancelled).to_string(),
        TurnEnd::Failed { message } => trf(lang, Key::EndFailed, &[("message", message)]),
        TurnEnd::AgentExited => tr(lang, Key::EndAgentExited).to_string(),
        TurnEnd::AuthRequired { message } => trf(lang, Key::LoginNeeded, &[("message", message)]),
    }
}

/// Where an agent runs: "local", "container web", "sandbox dev", "pod x".
pub fn where_text(lang: Language, runtime: &RuntimeConfig) -> String {
    let name = runtime.target_name().unwrap_or("?");
    match runtime.kind {
        RuntimeKind::Local => tr(lang, Key::WhereLocal).to_string(),
        RuntimeKind::Container | RuntimeKind::Podman => trf(lang, Key::WhereContainer, &[("name", name)]),
        RuntimeKind::Sbx => trf(lang, Key::WhereSandbox, &[("name", name)]),
        RuntimeKind::Kubectl => trf(lang, Key::WherePod, &[("name", name)]),
    }
}

/// What the card says the agent wants.
pub fn ask_text(lang: Language, agent: &str, runtime: &RuntimeConfig, ask: &Ask) -> String {
    let name = runtime.target_name().unwrap_or("?");
    match ask {
        Ask::RunCommand { .. } => match runtime.kind {
            RuntimeKind::Local => trf(lang, Key::AskRunHere, &[("agent", agent)]),
            RuntimeKind::Container | RuntimeKind::Podman => {
                trf(lang, Key::AskRunContainer, &[("agent", agent), ("name", name)])
            }
            RuntimeKind::Sbx => trf(lang, Key::AskRunSandbox, &[("agent", agent), ("name", name)]),
            RuntimeKind::Kubectl => trf(lang, Key::AskRunPod, &[("agent", agent), ("name", name)]),
        },
        Ask::EditFile { path } => trf(lang, Key::AskEdit, &[("agent", agent), ("path", path)]),
        Ask::DeleteFile { path } => trf(lang, Key::AskDelete, &[("agent", agent), ("path", path)]),
        Ask::MoveFile { path } => trf(lang, Key::AskMove, &[("agent", agent), ("path", path)]),
        Ask::ReadFile { path } => trf(lang, Key::AskRead, &[("agent", agent), ("path", path)]),
        Ask::Fetch { what } => trf(lang, Key::AskFetch, &[("agent", agent), ("what", what)]),
        Ask::Other { title } => trf(lang, Key::AskOther, &[("agent", agent), ("title", title)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placeholders(s: &str) -> Vec<String> {
        let mut out: Vec<String> =
            s.split('{').skip(1).filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string())).collect();
        out.sort();
        out
    }

    #[test]
    fn both_languages_have_every_key_with_the_same_placeholders() {
        for key in Key::ALL {
            let en = tr(Language::En, *key);
            let fr = tr(Language::Fr, *key);
            assert_eq!(placeholders(en), placeholders(fr), "placeholders differ for {key:?}");
            if *key != Key::EndTurn {
                assert!(!en.is_empty() && !fr.is_empty(), "{key:?} is empty in a language");
            }
        }
    }

    #[test]
    fn problems_read_in_french() {
        let kind = ProblemKind::UnknownRuntime { found: "dockr".into() };
        assert!(problem_text(Language::Fr, &kind).starts_with("Type d’environnement inconnu « dockr »"));
        assert!(problem_text(Language::En, &kind).starts_with("Unknown runtime type \"dockr\""));
    }
}
