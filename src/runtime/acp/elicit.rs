//! ACP elicitation (`elicitation/create`) to and from the model: the agent's form schema or URL
//! into [`Elicitation`], the person's answer into the response.

use std::collections::BTreeMap;

use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, CreateElicitationResponse, ElicitationAcceptAction, ElicitationAction,
    ElicitationContentValue, ElicitationMode, ElicitationPropertySchema, MultiSelectItems,
};

use crate::model::elicitation::{ElicitAnswer, ElicitKind, Elicitation, Field, FieldKind, Value};

/// The request as the model knows it (`None`: a mode Sidekicks does not know).
pub fn request(id: u64, req: &CreateElicitationRequest) -> Option<Elicitation> {
    let kind = match &req.mode {
        ElicitationMode::Form(form) => {
            let schema = &form.requested_schema;
            let required = schema.required.clone().unwrap_or_default();
            let fields = schema.properties.iter().map(|(name, p)| field(name, p, required.contains(name))).collect();
            ElicitKind::Form { title: schema.title.clone(), fields }
        }
        ElicitationMode::Url(url) => {
            ElicitKind::Url { url: url.url.clone(), elicitation_id: url.elicitation_id.0.to_string() }
        }
        _ => return None,
    };
    Some(Elicitation { id, message: req.message.clone(), kind })
}

fn field(name: &str, p: &ElicitationPropertySchema, required: bool) -> Field {
    let (title, description, kind) = match p {
        ElicitationPropertySchema::String(s) => {
            let options: Option<Vec<(String, String)>> = s
                .one_of
                .as_ref()
                .map(|o| o.iter().map(|e| (e.value.clone(), e.title.clone())).collect())
                .or_else(|| s.enum_values.as_ref().map(|v| v.iter().map(|x| (x.clone(), x.clone())).collect()));
            let kind = match options {
                Some(options) => FieldKind::Choice { options, default: s.default.clone() },
                None => FieldKind::Text {
                    default: s.default.clone(),
                    min_len: s.min_length,
                    max_len: s.max_length,
                    format: s.format.map(|f| {
                        serde_json::to_value(f).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
                    }),
                },
            };
            (s.title.clone(), s.description.clone(), kind)
        }
        ElicitationPropertySchema::Number(n) => (
            n.title.clone(),
            n.description.clone(),
            FieldKind::Number { integer: false, min: n.minimum, max: n.maximum, default: n.default },
        ),
        ElicitationPropertySchema::Integer(n) => (
            n.title.clone(),
            n.description.clone(),
            FieldKind::Number {
                integer: true,
                min: n.minimum.map(|m| m as f64),
                max: n.maximum.map(|m| m as f64),
                default: n.default.map(|d| d as f64),
            },
        ),
        ElicitationPropertySchema::Boolean(b) => {
            (b.title.clone(), b.description.clone(), FieldKind::Bool { default: b.default })
        }
        ElicitationPropertySchema::Array(m) => {
            let options = match &m.items {
                MultiSelectItems::String(s) => s.values.iter().map(|v| (v.clone(), v.clone())).collect(),
                MultiSelectItems::Titled(t) => t.options.iter().map(|o| (o.value.clone(), o.title.clone())).collect(),
                _ => Vec::new(),
            };
            (m.title.clone(), m.description.clone(), FieldKind::Many { options, min: m.min_items, max: m.max_items })
        }
        _ => (None, None, FieldKind::Unknown),
    };
    Field { name: name.into(), title: title.unwrap_or_else(|| name.into()), description, required, kind }
}

/// The response for the person's answer.
pub fn response(answer: &ElicitAnswer) -> CreateElicitationResponse {
    let action = match answer {
        ElicitAnswer::Accept(values) if values.is_empty() => ElicitationAction::Accept(ElicitationAcceptAction::new()),
        ElicitAnswer::Accept(values) => {
            let content: BTreeMap<String, ElicitationContentValue> = values
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::Text(t) => ElicitationContentValue::String(t.clone()),
                        Value::Integer(i) => ElicitationContentValue::Integer(*i),
                        Value::Number(n) => ElicitationContentValue::Number(*n),
                        Value::Bool(b) => ElicitationContentValue::Boolean(*b),
                        Value::Many(m) => ElicitationContentValue::StringArray(m.clone()),
                    };
                    (k.clone(), v)
                })
                .collect();
            ElicitationAction::Accept(ElicitationAcceptAction::new().content(content))
        }
        ElicitAnswer::Decline => ElicitationAction::Decline,
        ElicitAnswer::Cancel => ElicitationAction::Cancel,
    };
    CreateElicitationResponse::new(action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_from_the_wire_and_its_answer_back() {
        let req: CreateElicitationRequest = serde_json::from_value(serde_json::json!({
            "mode": "form", "sessionId": "s1", "message": "Details please",
            "requestedSchema": {"type": "object", "title": "Deploy", "required": ["env"], "properties": {
                "env": {"type": "string", "title": "Environment", "oneOf": [
                    {"const": "stage", "title": "Staging"}, {"const": "prod", "title": "Production"}]},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
                "dry": {"type": "boolean", "default": true},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
            }}
        }))
        .unwrap();
        let e = request(7, &req).unwrap();
        let ElicitKind::Form { title, fields } = &e.kind else { panic!("not a form") };
        assert_eq!(title.as_deref(), Some("Deploy"));
        let env = fields.iter().find(|f| f.name == "env").unwrap();
        assert!(env.required);
        assert_eq!(env.title, "Environment");
        assert!(
            matches!(&env.kind, FieldKind::Choice { options, .. } if options[1] == ("prod".into(), "Production".into()))
        );
        let replicas = fields.iter().find(|f| f.name == "replicas").unwrap();
        assert_eq!(
            replicas.kind,
            FieldKind::Number { integer: true, min: Some(1.0), max: Some(5.0), default: Some(2.0) }
        );
        assert!(
            matches!(&fields.iter().find(|f| f.name == "tags").unwrap().kind, FieldKind::Many { options, .. } if options.len() == 2)
        );

        let values =
            [("env".to_string(), Value::Text("prod".into())), ("replicas".to_string(), Value::Integer(3))].into();
        let json = serde_json::to_value(response(&ElicitAnswer::Accept(values))).unwrap();
        assert_eq!(json["action"], "accept");
        assert_eq!(json["content"]["replicas"], 3);
        assert_eq!(serde_json::to_value(response(&ElicitAnswer::Decline)).unwrap()["action"], "decline");
    }
}
