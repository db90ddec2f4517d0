/// Merges configuration fragments the way WirePlumber 0.5 does
/// (`wp_json_utils_merge_containers`):
///
/// * an object merges into an object key by key, recursively;
/// * an array is appended to an array;
/// * anything else replaces what was there (a scalar, or a value of another
///   kind: validation then reports the wrong type at the fragment's place);
/// * a key written `override.KEY` replaces KEY's value instead of merging it.
///
/// A key repeated within one object merges the same way, so a file means the
/// same whether its parts sit in one file or in several fragments.
public enum ConfigMerge {
    public static let overridePrefix = "override."

    /// The documents merged in order: each later one over the result so far.
    /// The result has no repeated keys and no `override.` prefixes.
    public static func merge(_ documents: [SPAJSON]) -> SPAJSON? {
        guard var result = documents.first.map(normalized) else { return nil }
        for fragment in documents.dropFirst() {
            result = merge(fragment, into: result)
        }
        return result
    }

    /// `fragment` merged over `base`.
    public static func merge(_ fragment: SPAJSON, into base: SPAJSON) -> SPAJSON {
        switch (base.value, fragment.value) {
        case (.object(var members), .object(let additions)):
            for addition in additions {
                merge(member: addition, into: &members)
            }
            return SPAJSON(.object(members), at: base.position)
        case (.array(let elements), .array(let additions)):
            return SPAJSON(.array(elements + additions.map(normalized)), at: base.position)
        default:
            return normalized(fragment)
        }
    }

    /// The value with repeated keys merged and `override.` prefixes resolved,
    /// at every depth.
    public static func normalized(_ value: SPAJSON) -> SPAJSON {
        switch value.value {
        case .object(let members):
            var merged: [SPAJSON.Member] = []
            for member in members {
                merge(member: member, into: &merged)
            }
            return SPAJSON(.object(merged), at: value.position)
        case .array(let elements):
            return SPAJSON(.array(elements.map(normalized)), at: value.position)
        default:
            return value
        }
    }

    private static func merge(member addition: SPAJSON.Member, into members: inout [SPAJSON.Member]) {
        let replaces = addition.key.hasPrefix(overridePrefix)
        let key = replaces ? String(addition.key.dropFirst(overridePrefix.count)) : addition.key
        guard let index = members.firstIndex(where: { $0.key == key }) else {
            members.append(SPAJSON.Member(key: key, keyPosition: addition.keyPosition, value: normalized(addition.value)))
            return
        }
        if replaces {
            members[index] = SPAJSON.Member(key: key, keyPosition: addition.keyPosition, value: normalized(addition.value))
        } else {
            let merged = merge(addition.value, into: members[index].value)
            // The key now stands where the value that won was written.
            let keyPosition = merged.position == members[index].value.position ? members[index].keyPosition : addition.keyPosition
            members[index] = SPAJSON.Member(key: key, keyPosition: keyPosition, value: merged)
        }
    }
}
