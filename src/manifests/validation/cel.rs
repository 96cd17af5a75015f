//! CEL building blocks for the validating admission policies: string literals, field paths,
//! upstream's field-error shapes (`<path>: <Type>: <value>: <detail>`) and the apimachinery
//! name checks (label keys and values, DNS-1123 subdomains) with their exact messages.
//!
//! Every function returns CEL source text. Error-producing functions return an expression of
//! type `list(string)`, empty when the value is fine, so rules compose with `+`.

/// A CEL double-quoted string literal holding `text`.
pub fn lit(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A string value as Go's `%q` (and JSON) prints it: in double quotes.
pub fn quoted(expr: &str) -> String {
    format!("(\"\\\"\" + {expr} + \"\\\"\")")
}

/// Builds a field path expression: literal parts and `[index]`/`[key]` parts from CEL values.
pub struct Path(String);

impl Path {
    /// A path starting with literal text such as `spec.resourceGroups`.
    pub fn new(text: &str) -> Path {
        Path(lit(text))
    }
    /// `.child`.
    pub fn child(&self, name: &str) -> Path {
        Path(format!("{} + {}", self.0, lit(&format!(".{name}"))))
    }
    /// `[i]` where `index` is a CEL int expression.
    pub fn index(&self, index: &str) -> Path {
        Path(format!("{} + \"[\" + string({index}) + \"]\"", self.0))
    }
    /// `[key]` where `key` is a CEL string expression (map keys print unquoted).
    pub fn key(&self, key: &str) -> Path {
        Path(format!("{} + \"[\" + {key} + \"]\"", self.0))
    }
    /// `.i` where `index` is a CEL int expression (upstream's path for immutable podSets).
    pub fn dot_index(&self, index: &str) -> Path {
        Path(format!("{} + \".\" + string({index})", self.0))
    }
    /// The CEL string expression.
    pub fn expr(&self) -> &str {
        &self.0
    }
}

/// `[<path>: Invalid value: <value>: <detail>]`; `value` is already printed (see [`quoted`]),
/// `detail` is a CEL string expression.
pub fn invalid(path: &Path, value: &str, detail: &str) -> String {
    format!(
        "[{} + \": Invalid value: \" + {value} + \": \" + {detail}]",
        path.expr()
    )
}

/// `[<path>: <Type>: <value>]` for Duplicate value, Not found, ...
pub fn typed_value(path: &Path, kind: &str, value: &str) -> String {
    format!(
        "[{} + {} + {value}]",
        path.expr(),
        lit(&format!(": {kind}: "))
    )
}

/// `[<path>: <Type>: <detail>]` for Required value and Forbidden, which print no value.
pub fn typed_detail(path: &Path, kind: &str, detail: &str) -> String {
    format!(
        "[{} + {}]",
        path.expr(),
        lit(&format!(": {kind}: {detail}"))
    )
}

/// `cond ? errors : []`.
pub fn when(cond: &str, errors: &str) -> String {
    format!("(({cond}) ? ({errors}) : [])")
}

/// `cond ? a : b`, parenthesized (CEL's grammar wants a bare ternary's middle in parentheses).
pub fn either(cond: &str, a: &str, b: &str) -> String {
    format!("(({cond}) ? ({a}) : ({b}))")
}

/// `body` with `var` bound to `init` (the API server's CEL has no `cel.bind`).
pub fn bind(var: &str, init: &str, body: &str) -> String {
    format!("([{init}].map({var}, {body})[0])")
}

/// Joins error lists.
pub fn all(lists: &[String]) -> String {
    if lists.is_empty() {
        return "[]".into();
    }
    format!("({})", lists.join(" + "))
}

/// `list.transformList(i, v, errors).flatten()`: errors per element, with its index.
pub fn each(list: &str, index: &str, item: &str, errors: &str) -> String {
    format!("({list}).transformList({index}, {item}, {errors}).flatten()")
}

/// A quantity (int-or-string) as a CEL quantity.
pub fn quantity(expr: &str) -> String {
    format!("quantity(string({expr}))")
}

/// `must be greater than or equal to 0` for a negative quantity.
pub fn non_negative_quantity(path: &Path, expr: &str) -> String {
    when(
        &format!("{}.isLessThan(quantity(\"0\"))", quantity(expr)),
        &invalid(
            path,
            &quoted(&format!("string({expr})")),
            &lit("must be greater than or equal to 0"),
        ),
    )
}

const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/// apimachinery's DNS-1123 subdomain format.
pub const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/// apimachinery's `RegexError`: the message, its examples and the regular expression.
fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    let examples: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!(
        "{msg} (e.g. {}regex used for validation is '{re}')",
        examples.join(" or ")
    )
}

fn matches(expr: &str, fmt: &str) -> String {
    format!("{expr}.matches({})", lit(&format!("^{fmt}$")))
}

/// `IsDNS1123Subdomain(s)`: its messages, each with `prefix` in front.
pub fn dns1123_subdomain_messages(s: &str, prefix: &str) -> String {
    let too_long = lit(&format!("{prefix}must be no more than 253 bytes"));
    let regex = lit(&format!(
        "{prefix}{}",
        regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"]
        )
    ));
    format!(
        "((size({s}) > 253 ? [{too_long}] : []) + ({} ? [] : [{regex}]))",
        matches(s, DNS1123_SUBDOMAIN_FMT)
    )
}

/// `IsLabelKey(s)` (also `IsQualifiedName`): its messages.
pub fn label_key_messages(s: &str) -> String {
    let bad_shape = lit(&format!(
        "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        regex_error(
            LABEL_KEY_MSG,
            LABEL_KEY_FMT,
            &["MyName", "my.name", "123-abc"]
        )
    ));
    let name_regex = lit(&format!(
        "name part {}",
        regex_error(
            LABEL_KEY_MSG,
            LABEL_KEY_FMT,
            &["MyName", "my.name", "123-abc"]
        )
    ));
    let name_errors = format!(
        "(size(name) == 0 ? [\"name part must be non-empty\"] : (size(name) > 63 ? [\"name part must be no more than 63 bytes\"] : [])) + \
         ({} ? [] : [{name_regex}])",
        matches("name", LABEL_KEY_FMT)
    );
    let prefix_errors = format!(
        "(size(parts) == 2 ? (size(parts[0]) == 0 ? [\"prefix part must be non-empty\"] : {}) : [])",
        dns1123_subdomain_messages("parts[0]", "prefix part ")
    );
    bind(
        "parts",
        &format!("{s}.split(\"/\")"),
        &either(
            "size(parts) > 2",
            &format!("[{bad_shape}]"),
            &format!(
                "{prefix_errors} + {}",
                bind("name", "parts[size(parts) - 1]", &name_errors)
            ),
        ),
    )
}

/// `IsValidLabelValue(s)`: its messages.
pub fn label_value_messages(s: &str) -> String {
    let regex = lit(&regex_error(
        LABEL_VALUE_MSG,
        LABEL_VALUE_FMT,
        &["MyValue", "my_value", "12345"],
    ));
    format!(
        "((size({s}) > 63 ? [\"must be no more than 63 bytes\"] : []) + ({} ? [] : [{regex}]))",
        matches(s, LABEL_VALUE_FMT)
    )
}

/// One `Invalid value` error per message of `messages` (a `list(string)` expression).
pub fn invalid_each(path: &Path, value: &str, messages: &str) -> String {
    format!(
        "({messages}).map(m, {} + \": Invalid value: \" + {value} + \": \" + m)",
        path.expr()
    )
}

/// `ValidateLabels(map, path)`: for each entry, the key's and the value's errors, all at `path`.
pub fn labels_errors(map: &str, path: &Path) -> String {
    each(
        map,
        "lk",
        "lv",
        &all(&[
            invalid_each(path, &quoted("lk"), &label_key_messages("lk")),
            invalid_each(path, &quoted("lv"), &label_value_messages("lv")),
        ]),
    )
}

/// Go's `strconv.Atoi` error for a string that is not an integer (the out-of-range case
/// reads `value out of range`).
pub fn atoi_error(s: &str) -> String {
    format!(
        "(\"strconv.Atoi: parsing \" + {} + ({s}.matches(\"^[+-]?[0-9]+$\") ? \": value out of range\" : \": invalid syntax\"))",
        quoted(s)
    )
}

/// Whether `s` is what `strconv.Atoi` accepts (digits with an optional sign, in int64 range).
pub fn is_atoi(s: &str) -> String {
    format!("({s}.matches(\"^[+-]?[0-9]{{1,18}}$\"))")
}

/// Whether `s` is what `strconv.ParseBool` accepts.
pub fn is_parse_bool(s: &str) -> String {
    format!(
        "({s} in [\"1\", \"t\", \"T\", \"TRUE\", \"true\", \"True\", \"0\", \"f\", \"F\", \"FALSE\", \"false\", \"False\"])"
    )
}

/// Whether `s` parses as `true` with `strconv.ParseBool`.
pub fn parse_bool_true(s: &str) -> String {
    format!("({s} in [\"1\", \"t\", \"T\", \"TRUE\", \"true\", \"True\"])")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_escape_quotes_and_backslashes() {
        assert_eq!(lit(r#"a"b\c"#), r#""a\"b\\c""#);
    }

    #[test]
    fn regex_errors_read_as_apimachinerys() {
        assert_eq!(
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            ),
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        );
    }
}
