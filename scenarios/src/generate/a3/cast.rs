//! Everyone who appears in the A3 worlds, named once, so that a person who turns up
//! in several worlds is always introduced to the agent by the same name.

/// Every person as (id, display name).
const EVERYONE: &[(&str, &str)] = &[
    ("amara", "Amara Okafor"),
    ("anouk", "Anouk Visser"),
    ("arjun", "Arjun Pillai"),
    ("beatriz", "Beatriz Lobo"),
    ("bo", "Bo Nakamura"),
    ("callum", "Callum Reid"),
    ("colette", "Colette Brandt"),
    ("dario", "Dario Mensah"),
    ("edith", "Edith Marr"),
    ("femi", "Femi Adeyemi"),
    ("gideon", "Gideon Marsh"),
    ("greta", "Greta Lindqvist"),
    ("hanne", "Hanne Solberg"),
    ("hugo", "Hugo Brandt"),
    ("imran", "Imran Qureshi"),
    ("ines", "Ines Carvalho"),
    ("jonas", "Jonas Weber"),
    ("kasia", "Kasia Wren"),
    ("keiko", "Keiko Sato"),
    ("kofi", "Kofi Asante"),
    ("lucia", "Lucia Ferraro"),
    ("mei", "Mei Chen"),
    ("noor", "Noor Haddad"),
    ("olu", "Olumide Bankole"),
    ("oskar", "Oskar Lind"),
    ("priyanka", "Priyanka Rao"),
    ("rafael", "Rafael Duarte"),
    ("rosa", "Rosa Jimenez"),
    ("ruth", "Ruth Okonkwo"),
    ("sven", "Sven Aalto"),
    ("tilda", "Tilda Brennan"),
    ("tobias", "Tobias Klein"),
    ("tomas", "Tomas Reyes"),
    ("wes", "Wes Thornton"),
    ("yusuf", "Yusuf Demir"),
];

/// The display name of a person (the id itself for someone not in [`EVERYONE`], which
/// the family's tests reject).
fn name(id: &'static str) -> &'static str {
    EVERYONE
        .iter()
        .find(|(known, _)| *known == id)
        .map_or(id, |(_, name)| *name)
}

/// The people of one world as (id, display name), in the order given.
pub(super) fn people(ids: &[&'static str]) -> Vec<(&'static str, &'static str)> {
    ids.iter().map(|id| (*id, name(id))).collect()
}
