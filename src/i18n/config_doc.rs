//! French descriptions of the config keys (English comes from the schema's doc comments).

use crate::model::config::Language;

/// The description of config key `key` in table `path`, in `lang`: `None` in English, where the
/// schema's own words (the doc comments of the config types) are used.
pub fn config_doc(lang: Language, path: &[&str], key: &str) -> Option<String> {
    if lang == Language::En {
        return None;
    }
    let table = path.first().copied().unwrap_or("");
    let sub = path.get(1).copied().unwrap_or("");
    let text = match (table, sub, key) {
        ("", _, "defaults") => "Réglages communs à tous les agents.",
        ("", _, "agent") => "Les agents, dans l’ordre du fichier.",
        ("", _, "channel") => "Les canaux auxquels les agents peuvent appartenir.",
        ("", _, "mcp") => "Les serveurs MCP donnés aux sessions des agents.",
        ("", _, "notifications") => "Les notifications du bureau.",
        ("", _, "registry") => "Le registre ACP, où « Obtenir des agents » trouve les agents à ajouter.",
        ("registry", _, "url") => {
            "L’adresse de son index (HTTPS ; HTTP simple seulement sur 127.0.0.1), par exemple le miroir de votre entreprise. Par défaut : le registre officiel. `$SIDEKICKS_REGISTRY_URL` l’emporte."
        }
        ("agent", "", "registry") => {
            "L’entrée du registre ACP d’où vient l’agent, et sa version (écrit par « Obtenir des agents » et `sidekicks registry` ; la mise à jour et la suppression s’en servent)."
        }
        ("agent", "registry", "id") => "L’identifiant de l’entrée dans le registre.",
        ("agent", "registry", "version") => "La version installée.",
        ("defaults", _, "theme") => "Clair ou sombre : `system` (le choix du bureau ; par défaut), `light` ou `dark`.",
        ("defaults", _, "send_with") => {
            "La touche qui envoie un message : `enter` (Maj+Entrée va à la ligne ; par défaut) ou `ctrl+enter` (Entrée va à la ligne)."
        }
        ("notifications", _, "enabled") => "Toutes (`false` les coupe toutes).",
        ("notifications", _, "needs_you") => "Une permission, une question ou une connexion vous attend.",
        ("notifications", _, "finished") => "Un agent a fini son tour.",
        ("notifications", _, "crashed") => "Un agent s’est arrêté brutalement.",
        ("notifications", _, "conflict") => "Une fusion dans le projet d’une équipe est en conflit.",
        ("", _, "checkpoints") => {
            "Avant chaque tour d’un agent sur cet ordinateur, l’état de son espace de travail est enregistré pour pouvoir y revenir (« Revenir à avant ce tour ») ; les plus anciens sont oubliés."
        }
        ("checkpoints", _, "enabled") => "Les enregistrer (`false` : ni point de reprise ni retour).",
        ("checkpoints", _, "keep") => {
            "Le nombre le plus grand gardé par espace de travail (les plus anciens partent d’abord)."
        }
        ("checkpoints", _, "max_age_days") => "Le nombre de jours pendant lesquels un point de reprise est gardé.",
        ("defaults", _, "idle_stop") => {
            "Secondes pendant lesquelles un agent inactif reste lancé avant d’être arrêté (0 = jamais)."
        }
        ("defaults", _, "max_running") => {
            "Nombre d’agents lancés en même temps ; en démarrer un de plus arrête l’agent inactif utilisé le moins récemment."
        }
        ("defaults", _, "language") => "Langue de l’interface : `en` ou `fr`. Sans elle, la langue du système décide.",
        ("agent", "", "name") => "Nom unique affiché dans la barre latérale.",
        ("agent", "", "command") => {
            "Programme à lancer. `sidekicks` désigne ce programme même (avec `args = [\"demo-agent\"]`, l’agent de démonstration)."
        }
        ("agent", "", "args") => "Arguments passés à la commande.",
        ("agent", "", "env") => "Variables d’environnement ajoutées pour l’agent.",
        ("agent", "", "workspace") => "Le dossier de travail de l’agent sur cet ordinateur.",
        ("agent", "", "runtime") => "Où l’agent s’exécute. Par défaut, sur cet ordinateur.",
        ("agent", "", "channels") => "Les canaux de l’agent (chacun déclaré par un [[channel]]).",
        ("agent", "", "policy") => {
            "Ce que Sidekicks laisse faire à l’agent par son intermédiaire, quel que soit le mode de l’agent."
        }
        ("agent", "policy", "writes") => {
            "Les écritures de fichiers par Sidekicks (`fs/write_text_file`) : `allow` (par défaut), `ask` (vous êtes consulté) ou `deny`."
        }
        ("agent", "policy", "commands") => {
            "Les commandes lancées par Sidekicks (`terminal/create`) : `allow` (par défaut), `ask` (vous êtes consulté) ou `deny`."
        }
        ("agent", "runtime", "type") => {
            "Type d’environnement : local, container, sbx, podman, kubectl ou ssh (une autre machine)."
        }
        ("agent", "runtime", "container") => "Nom du conteneur (container, podman).",
        ("agent", "runtime", "sandbox") => "Nom du bac à sable (sbx).",
        ("agent", "runtime", "pod") => "Nom du pod (kubectl).",
        ("agent", "runtime", "host") => {
            "La machine (ssh) : un hôte de votre configuration SSH, ou `utilisateur@hôte[:port]`."
        }
        ("agent", "runtime", "workspace_path") => {
            "Le dossier de travail dans le conteneur, le bac à sable, le pod ou sur l’autre machine. Par défaut : `workspace`."
        }
        ("channel", "", "name") => "Nom unique du canal.",
        ("channel", "", "description") => "À quoi sert le canal.",
        ("mcp", "", "name") => "Nom unique (les agents rangent ses outils sous ce nom).",
        ("mcp", "", "type") => {
            "Comment l’agent le joint : `stdio` (un programme qu’il lance ; par défaut avec `command`), `http` (par défaut avec `url`) ou `sse`."
        }
        ("mcp", "", "command") => "Le programme à lancer (stdio).",
        ("mcp", "", "args") => "Ses arguments (stdio).",
        ("mcp", "", "env") => "Variables ajoutées à son environnement (stdio).",
        ("mcp", "", "url") => "Son adresse (http, sse).",
        ("mcp", "", "headers") => "En-têtes HTTP qui lui sont envoyés (http, sse).",
        ("mcp", "", "agents") => "Les agents qui le reçoivent (par nom). Par défaut : tous.",
        _ => return None,
    };
    Some(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config_schema::keys_at;

    #[test]
    fn every_config_key_is_described_in_french() {
        for path in [
            &[][..],
            &["defaults"],
            &["agent"],
            &["agent", "runtime"],
            &["channel"],
            &["mcp"],
            &["notifications"],
            &["checkpoints"],
        ] {
            for doc in keys_at(path) {
                assert!(!doc.description.is_empty(), "{path:?}.{} has no English description", doc.key);
                assert!(
                    config_doc(Language::Fr, path, &doc.key).is_some(),
                    "{path:?}.{} has no French description",
                    doc.key
                );
            }
        }
    }
}
