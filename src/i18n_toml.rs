//! The TOML parser's messages in French. The parser (`toml_parser`, through `toml`) words its
//! errors as a description, then `, expected ` and what it expected (literals in backticks, or
//! descriptions); both come from a fixed set, translated here, so a syntax error reads in one
//! language. A message outside the set stays as the parser wrote it, in quotes.

/// The parser's descriptions and their French.
const DESCRIPTIONS: &[(&str, &str)] = &[
    ("`_` may only go between digits", "`_` ne peut être qu'entre deux chiffres"),
    ("cannot recurse further; max recursion depth met", "imbrication trop profonde"),
    ("carriage return must be followed by newline", "un retour chariot doit être suivi d'un saut de ligne"),
    ("extra `=`", "`=` en trop"),
    ("extra assignment between key-value pairs", "affectation en trop entre deux paires clé-valeur"),
    ("extra comma in array", "virgule en trop dans le tableau"),
    ("extra comma in inline table", "virgule en trop dans la table en ligne"),
    ("integers with a radix cannot be signed", "un entier avec une base ne peut pas avoir de signe"),
    ("invalid comment character", "caractère interdit dans un commentaire"),
    ("invalid inline table element", "élément de table en ligne invalide"),
    ("invalid key-value pair", "paire clé-valeur invalide"),
    ("invalid unquoted key", "clé sans guillemets invalide"),
    ("invalid value", "valeur invalide"),
    ("invalid key", "clé invalide"),
    ("invalid string", "chaîne invalide"),
    ("invalid table", "table invalide"),
    ("key with no value", "clé sans valeur"),
    ("keys cannot be multi-line basic strings", "une clé ne peut pas être une chaîne sur plusieurs lignes"),
    ("keys cannot be multi-line literal strings", "une clé ne peut pas être une chaîne littérale sur plusieurs lignes"),
    ("missing array opening", "ouverture de tableau manquante"),
    ("missing assignment between key-value pairs", "`=` manquant entre clé et valeur"),
    ("missing comma between array elements", "virgule manquante entre les éléments du tableau"),
    ("missing comma between key-value pairs", "virgule manquante entre les paires clé-valeur"),
    ("missing comment start", "début de commentaire manquant"),
    ("missing escaped value", "valeur d'échappement manquante"),
    ("missing inline table opening", "ouverture de table en ligne manquante"),
    ("missing key for inline table element", "clé manquante pour un élément de table en ligne"),
    ("missing opening quote", "guillemet ouvrant manquant"),
    ("missing table open", "ouverture de table manquante"),
    ("missing value for key", "valeur manquante pour la clé"),
    ("missing value", "valeur manquante"),
    ("radix must be lowercase", "la base doit être en minuscules"),
    ("redundant integer number prefix", "préfixe d'entier redondant"),
    ("redundant numeric sign", "signe redondant"),
    ("string values must be quoted", "une chaîne doit être entre guillemets"),
    ("too few unicode value digits", "trop peu de chiffres dans la valeur unicode"),
    ("unclosed array table", "tableau de tables non fermé"),
    ("unclosed array", "tableau non fermé"),
    ("unclosed inline table", "table en ligne non fermée"),
    ("unclosed table", "table non fermée"),
    ("unexpected `=` in array", "`=` inattendu dans un tableau"),
    ("unexpected content between comment and newline", "contenu inattendu entre le commentaire et la fin de ligne"),
    ("unexpected content", "contenu inattendu"),
    ("unexpected key or value", "clé ou valeur inattendue"),
    ("unexpected leading zero", "zéro initial inattendu"),
    ("unexpected sign", "signe inattendu"),
    ("unquoted keys cannot be empty", "une clé sans guillemets ne peut pas être vide"),
    ("invalid basic string", "chaîne invalide"),
    ("invalid literal string", "chaîne littérale invalide"),
    ("invalid multi-line basic string", "chaîne sur plusieurs lignes invalide"),
    ("invalid multi-line literal string", "chaîne littérale sur plusieurs lignes invalide"),
    ("invalid unicode escape", "échappement unicode invalide"),
    ("invalid escape sequence", "séquence d'échappement invalide"),
    ("duplicate key", "clé en double"),
    ("invalid boolean", "booléen invalide"),
    ("invalid date-time", "date-heure invalide"),
    ("invalid float", "nombre à virgule invalide"),
    ("invalid integer number", "entier invalide"),
    ("invalid hexadecimal number", "nombre hexadécimal invalide"),
    ("invalid octal number", "nombre octal invalide"),
    ("invalid binary number", "nombre binaire invalide"),
];

/// What the parser expected, in French.
const EXPECTED: &[(&str, &str)] = &[
    ("basic string", "une chaîne"),
    ("characters", "des caractères"),
    ("digits", "des chiffres"),
    ("key", "une clé"),
    ("letters", "des lettres"),
    ("literal string", "une chaîne littérale"),
    ("multi-line basic string", "une chaîne sur plusieurs lignes"),
    ("non-double-quote visible characters", "des caractères visibles autres que `\"`"),
    ("non-single-quote characters", "des caractères autres que `'`"),
    ("non-single-quote visible characters", "des caractères visibles autres que `'`"),
    ("numbers", "des nombres"),
    ("printable characters", "des caractères imprimables"),
    ("unicode hexadecimal value", "une valeur unicode hexadécimale"),
    ("value", "une valeur"),
    ("unquoted string", "une chaîne sans guillemets"),
    ("nothing", "rien"),
    ("newline", "une fin de ligne"),
    ("whitespace", "une espace"),
    ("comment", "un commentaire"),
    ("end-of-input", "la fin du texte"),
    ("token", "un mot"),
    ("multi-line literal string", "une chaîne littérale sur plusieurs lignes"),
    ("std-table open", "`[`"),
    ("std-table close", "`]`"),
    ("array-table open", "`[[`"),
    ("array-table close", "`]]`"),
    ("inline-table open", "`{`"),
    ("inline-table close", "`}`"),
    ("array open", "`[`"),
    ("array close", "`]`"),
    ("key separator", "`.`"),
    ("key-value separator", "`=`"),
    ("value separator", "`,`"),
    ("integer", "un entier"),
    ("hexadecimal", "un nombre hexadécimal"),
    ("octal", "un nombre octal"),
    ("binary", "un nombre binaire"),
    ("string", "une chaîne"),
    ("boolean", "un booléen"),
    ("date-time", "une date-heure"),
    ("float", "un nombre à virgule"),
    ("etc", "etc."),
];

fn lookup(table: &[(&str, &'static str)], english: &str) -> Option<&'static str> {
    table.iter().find(|(en, _)| *en == english).map(|(_, fr)| *fr)
}

/// `message` (the parser's) in French, or `None` when a part of it is not known.
pub fn french(message: &str) -> Option<String> {
    let (description, expected) = match message.split_once(", expected ") {
        Some((d, e)) => (d, Some(e)),
        None => (message, None),
    };
    let description = match lookup(DESCRIPTIONS, description) {
        Some(fr) => fr.to_string(),
        // `duplicate key `name``: the name stays.
        None => match description.strip_prefix("duplicate key ") {
            Some(name) => format!("clé en double {name}"),
            None => return None,
        },
    };
    let Some(expected) = expected else { return Some(description) };
    let mut items = Vec::new();
    for item in expected.split(", ") {
        // A literal is shown in backticks and stays as it is.
        if item.starts_with('`') {
            items.push(item.to_string());
        } else {
            items.push(lookup(EXPECTED, item)?.to_string());
        }
    }
    Some(format!("{description}, attendu : {}", items.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parsers_messages_on_broken_configs_read_in_french() {
        // Broken configs as people write them: each message the parser gives is known.
        let broken = [
            "name = \n",
            "[agent\nname = \"a\"\n",
            "[[agent]\n",
            "name \"a\"\n",
            "args = [\"a\" \"b\"]\n",
            "args = [\"a\",,]\n",
            "x = {a = 1 b = 2}\n",
            "x = {a = 1,}\n",
            "x = \"unclosed\n",
            "x = 'unclosed\n",
            "x = \"bad \\q escape\"\n",
            "x = \"\\u12\"\n",
            "x = 0X1F\n",
            "x = +0x1F\n",
            "x = 01\n",
            "x = 1__0\n",
            "x = ++1\n",
            "x = tru\n",
            "x = [1, 2\n",
            "x = {a = 1\n",
            "a.b. = 1\n",
            "= 1\n",
            "a = 1 b = 2\n",
            "a = 1 # comment \u{7f}\n",
            "\"\"\"a\"\"\" = 1\n",
            "a = 1\na = 2\n",
            "x = 1 = 2\n",
            "x = [1 = 2]\n",
        ];
        let mut unknown = Vec::new();
        for text in broken {
            let (_, errors) = toml::de::DeTable::parse_recoverable(text);
            for error in errors {
                let message = error.message().trim().to_string();
                if french(&message).is_none() {
                    unknown.push((text, message));
                }
            }
        }
        assert!(unknown.is_empty(), "messages left in English: {unknown:#?}");
        assert_eq!(
            french("invalid key-value pair, expected `=`").as_deref(),
            Some("paire clé-valeur invalide, attendu : `=`")
        );
        assert_eq!(french("something new"), None);
    }
}
