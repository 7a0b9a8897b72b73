//! A weapon in a Quake 3 player's hand: the "Attach weapon…" dialog, and the reopen that
//! hangs the picked model on the player's `tag_weapon` ([`super::loader::HeldWeapon`]), which
//! every later reopen of the player (another skin) asks for again.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::loader::HeldWeapon;
use super::window::App;
use super::{NO_DIALOG_WITHIN, UserEvent};
use crate::formats::Pick;
use crate::formats::md3::player::GROUP;
use crate::scene::Scene;

/// Whether `scene` is an assembled Quake 3 player, which can hold a weapon.
pub fn holds_weapons(scene: &Scene) -> bool {
    scene.parts.iter().any(|p| p.group == GROUP)
}

/// The picks the scene was opened with, to reopen it as it is.
pub fn current_picks(scene: &Scene) -> Vec<Pick> {
    scene.choices.iter().filter_map(|c| Some(Pick { key: c.key.clone(), option: c.selected? })).collect()
}

impl App {
    /// The file dialog for the weapon (run aside so the window keeps drawing).
    pub(super) fn pick_weapon(&mut self) {
        let proxy = self.proxy.clone();
        let start = self.viewer.session.doc.as_ref().and_then(|d| d.path.parent().map(PathBuf::from));
        let spawned = std::thread::Builder::new().name("mdview-dialog".into()).spawn(move || {
            let started = Instant::now();
            let mut dialog = rfd::FileDialog::new()
                .set_title("Weapon for the player's tag_weapon")
                .add_filter("Quake 3 models (md3)", &["md3", "MD3"])
                .add_filter("All files", &["*"]);
            if let Some(dir) = start {
                dialog = dialog.set_directory(dir);
            }
            let path = dialog.pick_file();
            let _ = proxy.send_event(UserEvent::WeaponPicked { path, elapsed: started.elapsed() });
        });
        if let Err(e) = spawned {
            self.viewer.notify(format!("could not open the file dialog: {e}"), true);
        }
    }

    /// The weapon dialog closed: the player on screen reopens holding the weapon.
    pub(super) fn weapon_picked(&mut self, path: Option<PathBuf>, elapsed: Duration) {
        let Some(weapon) = path else {
            if elapsed < NO_DIALOG_WITHIN {
                self.viewer.notify("No file dialog is available here; start with --weapon MODEL", true);
            }
            return;
        };
        if !self.viewer.session.may_reopen() {
            self.viewer.notify("Another model is opening; attach the weapon once it has", true);
            return;
        }
        let Some(doc) = self.viewer.session.doc.as_ref().filter(|d| holds_weapons(&d.scene)) else { return };
        let player = doc.path.clone();
        let picks = current_picks(&doc.scene);
        self.loader.weapon = Some(HeldWeapon { player: player.clone(), weapon });
        let id = self.loader.request_with(player.clone(), Instant::now(), picks, true);
        self.viewer.session.begin(id, player);
    }
}
