//! Named choices: a key of a scenario file whose value is one of a few words (CHOKe's `variant`,
//! FQ's `user`, a rate schedule's `rate_shape`) is an enum declared with [`choice_enum!`], each
//! variant beside its one name. The names feed both the parser ([`super::Fields::choice`], which
//! gives the variant) and the catalogue (its "one of:" list), so a variant cannot be readable
//! without being documented, and the code after reading matches the enum, never the string.

/// An enum of named variants, declared with [`choice_enum!`].
pub trait Choice: Copy + 'static {
    /// Every variant, in the order messages and the catalogue list them.
    const ALL: &'static [Self];
    /// Their names in scenario files, in the same order.
    const NAMES: &'static [&'static str];

    /// The variant's name in scenario files.
    fn name(self) -> &'static str;

    /// The variant named `name`, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().position(|n| *n == name).map(|i| Self::ALL[i])
    }
}

/// Declares an enum and its [`Choice`] names at once: `Variant = "name"` for each variant.
/// Attributes (derives, doc comments) pass through. Serialisation stays the enum's own derive:
/// the expanded scenario's JSON keeps the spelling it has always had.
macro_rules! choice_enum {
    (
        $(#[$attr:meta])*
        $vis:vis enum $enum:ident {
            $( $(#[$variant_attr:meta])* $variant:ident = $name:literal ),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $enum {
            $( $(#[$variant_attr])* $variant ),+
        }

        impl $crate::conf::Choice for $enum {
            const ALL: &'static [Self] = &[$($enum::$variant),+];
            const NAMES: &'static [&'static str] = &[$($name),+];

            fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name),+
                }
            }
        }
    };
}

pub(crate) use choice_enum;

#[cfg(test)]
mod tests {
    use super::*;

    choice_enum! {
        #[derive(Clone, Copy, Debug, PartialEq)]
        enum Colour {
            /// The first.
            Red = "red",
            DeepBlue = "deep_blue",
        }
    }

    #[test]
    fn every_variant_is_found_by_its_name_and_only_by_it() {
        for &c in Colour::ALL {
            assert_eq!(Colour::from_name(c.name()), Some(c));
        }
        assert_eq!(Colour::NAMES, ["red", "deep_blue"]);
        assert_eq!(Colour::from_name("deepblue"), None);
        assert_eq!(Colour::from_name("Red"), None);
    }
}
