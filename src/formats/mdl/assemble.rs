//! The scene of a decoded `.mdl`: one mesh node whose rest pose is the first pose, render
//! vertices from (vertex, seam side) pairs, a material per skin (a skin group's material cycles
//! through its pictures, [`ImageCycle`]), and clips
//! that play the poses as Quake II's do ([`PackedFrames`]): runs of simple frames grouped by
//! name at 10 per second, and each frame group a clip of its own at its intervals.

use std::sync::{Arc, LazyLock};

use glam::{Mat4, Vec2, Vec3};

use super::palette::{Palette, to_rgba};
use super::{CHOICE_SKIN, FRAMES_PER_SECOND, Frame, Header, MdlFile, Pose, Skin, VERSION};
use crate::formats::Pick;
use crate::formats::frame_clips::{clip_of, name_runs};
use crate::formats::quake_axes::to_scene;
use crate::formats::quake2::normals::NORMALS;
use crate::scene::Channel;
use crate::scene::{
    Aabb, Clip, DetailRow, DetailSection, FormatKind, FrameTable, Image, ImageCycle, ImageSource, Material, Mesh, Node,
    NodeKind, OpenChoice, PackedFrames, RawField, Scene, SceneImage, SceneKind, Submesh,
};

/// How fast Quake turns an `EF_ROTATE` item about its up axis: `CL_RelinkEntities` sets its yaw
/// to `anglemod(100 * cl.time)`.
const SPIN_DEGREES_PER_SEC: f32 = 100.0;

/// Packed byte feeding scene x, y, z: scene = (x, z, −y), the sign in the scale.
const SCENE_LANES: [u8; 3] = [0, 2, 1];

static SCENE_NORMALS: LazyLock<Vec<Vec3>> =
    LazyLock::new(|| NORMALS.iter().map(|&n| to_scene(Vec3::from_array(n))).collect());

/// A skin picture kept as palette indices, turned into pixels when drawn.
#[derive(Debug)]
struct SkinPicture {
    indices: Vec<u8>,
    width: u32,
    height: u32,
    palette: Palette,
    location: String,
}

impl ImageSource for SkinPicture {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn load(&self) -> Result<Image, String> {
        Ok(Image {
            width: self.width,
            height: self.height,
            rgba: to_rgba(&self.indices, &self.palette),
            location: self.location.clone(),
        })
    }
}

/// Render vertices: per triangle corner, its vertex and whether it takes the back half of the
/// skin (an on-seam vertex of a triangle that does not face front: `s + skinwidth / 2`).
fn render_vertices(file: &MdlFile) -> (Vec<u32>, Vec<Vec2>, Vec<[u32; 3]>) {
    let (w, h) = (file.header.skin_width.max(1) as f32, file.header.skin_height.max(1) as f32);
    let mut slot: Vec<[Option<u32>; 2]> = vec![[None; 2]; file.st.len()];
    let (mut source, mut uvs, mut triangles) = (Vec::new(), Vec::new(), Vec::with_capacity(file.triangles.len()));
    for tri in &file.triangles {
        let corners = tri.vertices.map(|v| {
            let st = file.st.get(v as usize).copied().unwrap_or(super::StVert { on_seam: false, s: 0, t: 0 });
            let back = usize::from(!tri.faces_front && st.on_seam);
            let entry = slot.get_mut(v as usize).and_then(|s| s.get_mut(back));
            match entry {
                Some(Some(index)) => *index,
                Some(entry) => {
                    let index = source.len() as u32;
                    *entry = Some(index);
                    source.push(v);
                    let s = st.s as f32 + if back == 1 { w / 2.0 } else { 0.0 };
                    // Texel centres, as GL_MakeAliasModelDisplayLists samples them.
                    uvs.push(Vec2::new((s + 0.5) / w, (st.t as f32 + 0.5) / h));
                    index
                }
                None => 0,
            }
        });
        // Stored clockwise; the scene's fronts are counter-clockwise.
        triangles.push([corners[0], corners[2], corners[1]]);
    }
    (source, uvs, triangles)
}

/// Clip runs over the pose table: `(name, first pose, last pose)`.
type Runs = Vec<(String, usize, usize)>;

/// The poses in file order with, per pose, its time, and the clip runs over them.
fn pose_table(file: &MdlFile) -> (Vec<&Pose>, Vec<f32>, Runs) {
    let (mut poses, mut times, mut runs) = (Vec::new(), Vec::new(), Vec::<(String, usize, usize, bool)>::new());
    for frame in &file.frames {
        let first = poses.len();
        match frame {
            Frame::Single(pose) => {
                let name = if pose.name.is_empty() { "all".to_string() } else { clip_of(&pose.name).to_string() };
                poses.push(pose);
                times.push(first as f32);
                match runs.last_mut() {
                    Some(run) if run.0 == name && !run.3 => run.2 = first,
                    _ => runs.push((name, first, first, false)),
                }
            }
            Frame::Group { intervals, poses: group, .. } => {
                let name = group.first().map_or("group", |p| clip_of(&p.name));
                let name = if name.is_empty() { "group".to_string() } else { name.to_string() };
                for (k, pose) in group.iter().enumerate() {
                    poses.push(pose);
                    // Pose k shows from the end of the one before it.
                    let start = k.checked_sub(1).and_then(|i| intervals.get(i)).copied().unwrap_or(0.0);
                    times.push(first as f32 + start * FRAMES_PER_SECOND);
                }
                runs.push((name, first, poses.len() - 1, true));
            }
        }
    }
    let named = name_runs(runs.iter().map(|(n, a, b, _)| (n.as_str(), *a, *b)));
    (poses, times, named)
}

/// A material per skin, its picture an image of the scene; a skin group's material shows its
/// pictures in turn ([`ImageCycle`]) on the global clock, in frame units (the intervals × 10),
/// as Quake's `R_AliasSetupSkin` picks one by `time % last interval`.
/// The skins' pictures move into the scene's images (`skins` is the file's, taken).
fn skin_materials(
    scene: &mut Scene,
    skins: Vec<Skin>,
    header: &Header,
    palette: &Palette,
    palette_source: &str,
    picks: &[Pick],
) {
    let mut options = Vec::new();
    for (s, skin) in skins.into_iter().enumerate() {
        let grouped = matches!(skin, Skin::Group { .. });
        let (name, pictures, intervals) = match skin {
            Skin::Single(p) => (format!("skin {s}"), vec![p], Vec::new()),
            Skin::Group { intervals, pictures } => {
                let ends: Vec<String> = intervals.iter().map(|end| format!("{end}")).collect();
                let label = format!("skin {s} (group of {}, until {} s)", pictures.len(), ends.join(", "));
                (label, pictures, intervals)
            }
        };
        let first_image = scene.images.len();
        for (k, indices) in pictures.into_iter().enumerate() {
            let picture = if grouped { format!("skin {s} picture {k}") } else { name.clone() };
            let source = SkinPicture {
                indices,
                width: header.skin_width,
                height: header.skin_height,
                palette: palette.clone(),
                location: format!("{picture} in the model, with {palette_source}"),
            };
            scene.images.push(SceneImage::new(picture, Some(Arc::new(source))));
        }
        let mut material = Material::new(name.clone());
        material.texture = Some(name.clone());
        material.image = Some(first_image);
        if !intervals.is_empty() {
            material.image_cycle = Some(ImageCycle {
                images: (first_image..scene.images.len()).collect(),
                ends: intervals.iter().map(|end| end * FRAMES_PER_SECOND).collect(),
            });
        }
        scene.materials.push(material);
        options.push(name);
    }
    if options.is_empty() {
        scene.materials.push(Material::new("no skin"));
        return;
    }
    let picked = picks.iter().rev().find(|p| p.key == CHOICE_SKIN).map(|p| p.option).filter(|&o| o < options.len());
    let selected = picked.unwrap_or(0);
    for sub in scene.meshes.iter_mut().flat_map(|m| m.submeshes.iter_mut()) {
        sub.material = Some(selected);
    }
    scene.choices.push(OpenChoice {
        key: CHOICE_SKIN.into(),
        label: "Skin".into(),
        available: vec![true; options.len()],
        options,
        selected: Some(selected),
    });
}

/// Builds the scene with skins in `palette` (from `palette_source`), the skin `picks` chose; the
/// file's skin pictures move into the scene rather than being copied.
pub fn build_scene(mut file: MdlFile, palette: Palette, palette_source: &str, picks: &[Pick]) -> Scene {
    let skin_table = skin_details(&file);
    let skins = std::mem::take(&mut file.skins);
    let file = &file;
    let h = &file.header;
    let mut scene = Scene::new(FormatKind::Quake1Mdl, SceneKind::Mesh);
    scene.version = VERSION as u32;
    scene.warnings = file.warnings.clone();
    let (poses, times, runs) = pose_table(file);
    let vertex_count = h.vertex_count as usize;
    let mut records = Vec::with_capacity(poses.len() * vertex_count * 4);
    let mut table = FrameTable { times, ..FrameTable::default() };
    for pose in &poses {
        records.extend_from_slice(pose.vertices.as_flattened());
        let start = table.name_text.len() as u32;
        table.name_text.push_str(&pose.name);
        table.name_ranges.push((start, table.name_text.len() as u32));
        table.transforms.push((to_scene(h.scale), to_scene(h.origin)));
    }
    let table = Arc::new(table);
    let template = PackedFrames {
        mesh: 0,
        table: table.clone(),
        frames: 0..poses.len(),
        records: Arc::new(records),
        first: 0,
        frame_stride: vertex_count * 4,
        vertex_count,
        lanes: SCENE_LANES,
        normal_table: SCENE_NORMALS.as_slice(),
        wraps: true,
    };
    let (vertex_source, uvs, triangles) = render_vertices(file);
    let source_positions = template.unpack(0);
    let rest = template.records_at(0).unwrap_or(&[]);
    let normals =
        vertex_source.iter().map(|&s| rest.get(s as usize).map_or(Vec3::Y, |&p| template.normal(p))).collect();
    scene.meshes.push(Mesh {
        name: "model".into(),
        node: Some(0),
        bounds: Aabb::from_points(&source_positions),
        source_positions,
        submeshes: vec![Submesh {
            material: Some(0),
            first_triangle: 0,
            triangle_count: triangles.len() as u32,
            vertex_start: 0,
            vertex_end: uvs.len().saturating_sub(1) as u32,
        }],
        vertex_source,
        uvs,
        uvs1: Vec::new(),
        normals,
        triangles,
        skin: None,
        raw: Vec::new(),
        keep_rest_normals: false,
        raw_triangle_tags: Vec::new(),
    });
    let mut node = Node::new("model", NodeKind::Mesh, Mat4::IDENTITY);
    node.mesh = Some(0);
    scene.nodes.push(node);
    skin_materials(&mut scene, skins, h, &palette, palette_source, picks);
    for (name, first, last) in runs {
        let (start, end) =
            (table.times.get(first).copied().unwrap_or(0.0), table.times.get(last).copied().unwrap_or(0.0));
        scene.clips.push(Clip {
            name,
            source: None,
            start,
            end,
            rate: FRAMES_PER_SECOND,
            channels: vec![Channel::PackedFrames(PackedFrames { frames: first..last + 1, ..template.clone() })],
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
    }
    let flags = h.flag_names();
    if flags.contains(&"EF_ROTATE") {
        scene.spin_degrees_per_sec = Some(SPIN_DEGREES_PER_SEC);
    }
    scene.raw = vec![
        RawField::new("numskins", 48, u64::from(h.skin_count)),
        RawField::new("skinwidth", 52, u64::from(h.skin_width)),
        RawField::new("skinheight", 56, u64::from(h.skin_height)),
        RawField::new("numverts", 60, u64::from(h.vertex_count)),
        RawField::new("numtris", 64, u64::from(h.triangle_count)),
        RawField::new("numframes", 68, u64::from(h.frame_count)),
        RawField::new("synctype", 72, h.synctype as u32 as u64),
        RawField::new("flags", 76, h.flags as u32 as u64),
    ];
    let v = |v: Vec3| format!("{} {} {}", v.x, v.y, v.z);
    let groups = file.frames.iter().filter(|f| matches!(f, Frame::Group { .. })).count();
    scene.details = vec![DetailSection {
        title: "MDL header".into(),
        rows: vec![
            DetailRow::default()
                .with("field", "flags")
                .with("value", if flags.is_empty() { "none".into() } else { flags.join(" ") }),
            DetailRow::default()
                .with("field", "synctype")
                .with("value", if h.synctype == 0 { "sync" } else { "random" }),
            DetailRow::default().with("field", "eye position").with("value", v(h.eye)),
            DetailRow::default().with("field", "bounding radius").with("value", h.radius),
            DetailRow::default().with("field", "frame groups").with("value", groups),
            DetailRow::default().with("field", "palette").with("value", palette_source),
            DetailRow::default().with("field", "trailing bytes").with("value", file.trailing.len()),
        ],
    }];
    if let (Some(degrees), Some(header)) = (scene.spin_degrees_per_sec, scene.details.first_mut()) {
        let spin = format!("{degrees} degrees a second about up (EF_ROTATE), as the viewer plays it");
        header.rows.push(DetailRow::default().with("field", "spin").with("value", spin));
    }
    scene.details.push(skin_table);
    scene
}

/// The skins as a table for `info` and the panel: a picture, or a group with its pictures' end
/// times, played as a cycle.
fn skin_details(file: &MdlFile) -> DetailSection {
    let rows = file
        .skins
        .iter()
        .enumerate()
        .map(|(s, skin)| {
            let row = DetailRow::default().with("skin", s);
            match skin {
                Skin::Single(_) => row.with("kind", "picture").with("pictures", 1).with("ends (s)", "-"),
                Skin::Group { intervals, pictures } => {
                    let ends: Vec<String> = intervals.iter().map(|end| format!("{end}")).collect();
                    row.with("kind", "group, cycling").with("pictures", pictures.len()).with("ends (s)", ends.join(" "))
                }
            }
        })
        .collect();
    DetailSection { title: "MDL skins".into(), rows }
}
