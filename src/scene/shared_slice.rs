//! [`SharedSlice`]: a read-only run of a list shared behind an `Arc`, so that many curves can
//! view one decoded key list without copying it.

/// A read-only run of elements that several owners may share: a view into one list held
/// behind an `Arc`, read as a slice. An M2 track decodes every sequence's keys into one list,
/// and each clip's curve views its sequence's run of it: opening a model with 140 bones and
/// 147 sequences allocates once per track instead of once per (track, sequence), and
/// building its clips moves views, not key lists.
pub struct SharedSlice<E> {
    /// `None` for an empty run, which then allocates nothing.
    list: Option<std::sync::Arc<Vec<E>>>,
    /// The run, `start..start + len`, always within `list` (see [`SharedSlice::view`]). Held
    /// here so that a run's length is known without reaching into the shared list: a clip
    /// built from 420 tracks asks each one whether it plays, and that should cost no extra
    /// cache miss.
    start: u32,
    len: u32,
}

impl<E> SharedSlice<E> {
    /// The run `range` of `list`; `None` where the range does not lie within the list (or
    /// past 2³² elements). An empty run does not hold on to the list.
    pub fn view(list: &std::sync::Arc<Vec<E>>, range: std::ops::Range<usize>) -> Option<Self> {
        list.get(range.clone())?;
        if range.is_empty() {
            return Some(Self::default());
        }
        let start = u32::try_from(range.start).ok()?;
        let len = u32::try_from(range.len()).ok()?;
        Some(Self { list: Some(list.clone()), start, len })
    }

    pub fn as_slice(&self) -> &[E] {
        // `view` checked the run and the list never changes behind the `Arc`.
        let (start, len) = (self.start as usize, self.len as usize);
        self.list.as_deref().and_then(|list| list.get(start..start.checked_add(len)?)).unwrap_or(&[])
    }

    /// The part `range` of this run (indices relative to it), sharing its list; `None` where
    /// the range does not lie within the run.
    pub fn subview(&self, range: std::ops::Range<usize>) -> Option<Self> {
        if range.start > range.end || range.end > self.len() {
            return None;
        }
        if range.is_empty() {
            return Some(Self::default());
        }
        let start = u32::try_from(range.start).ok()?.checked_add(self.start)?;
        Some(Self { list: self.list.clone(), start, len: u32::try_from(range.len()).ok()? })
    }

    /// The run's length, known without touching the shared list.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<E> Default for SharedSlice<E> {
    fn default() -> Self {
        Self { list: None, start: 0, len: 0 }
    }
}

// By hand: a derive would ask `E: Clone`, and cloning a view never clones elements.
impl<E> Clone for SharedSlice<E> {
    fn clone(&self) -> Self {
        Self { list: self.list.clone(), start: self.start, len: self.len }
    }
}

impl<E> std::ops::Deref for SharedSlice<E> {
    type Target = [E];
    fn deref(&self) -> &[E] {
        self.as_slice()
    }
}

impl<'a, E> IntoIterator for &'a SharedSlice<E> {
    type Item = &'a E;
    type IntoIter = std::slice::Iter<'a, E>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// The whole list as one run. A run's bounds are `u32`s, so a list of 2³² elements or more
/// reads as empty: decoders check their lists' lengths before converting them.
impl<E> From<Vec<E>> for SharedSlice<E> {
    fn from(list: Vec<E>) -> Self {
        let len = list.len();
        Self::view(&std::sync::Arc::new(list), 0..len).unwrap_or_default()
    }
}

impl<E> FromIterator<E> for SharedSlice<E> {
    fn from_iter<I: IntoIterator<Item = E>>(items: I) -> Self {
        items.into_iter().collect::<Vec<E>>().into()
    }
}

impl<E: std::fmt::Debug> std::fmt::Debug for SharedSlice<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<E: PartialEq> PartialEq for SharedSlice<E> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<E: PartialEq> PartialEq<Vec<E>> for SharedSlice<E> {
    fn eq(&self, other: &Vec<E>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_slices_view_runs_of_one_list() {
        let list = std::sync::Arc::new(vec![1, 2, 3, 4, 5]);
        let middle = SharedSlice::view(&list, 1..4).unwrap();
        assert_eq!(&*middle, &[2, 3, 4]);
        assert_eq!(middle, vec![2, 3, 4]);
        assert_eq!(middle.clone(), middle);
        assert_eq!(middle.iter().sum::<i32>(), 9);
        assert_eq!((&middle).into_iter().count(), 3);
        // Views hold the list; an empty run does not.
        assert_eq!(std::sync::Arc::strong_count(&list), 2);
        let empty = SharedSlice::view(&list, 5..5).unwrap();
        assert!(empty.is_empty());
        assert_eq!(std::sync::Arc::strong_count(&list), 2);
        // Runs outside the list, or reversed, are refused.
        assert!(SharedSlice::view(&list, 4..6).is_none());
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = SharedSlice::view(&list, 3..2);
        assert!(reversed.is_none());
        drop(middle);
        assert_eq!(std::sync::Arc::strong_count(&list), 1);
        let owned: SharedSlice<i32> = vec![7, 8].into();
        assert_eq!(owned, vec![7, 8]);
        let collected: SharedSlice<i32> = (0..3).collect();
        assert_eq!(&*collected, &[0, 1, 2]);
        assert_eq!(format!("{collected:?}"), "[0, 1, 2]");
        assert!(SharedSlice::<i32>::from(Vec::new()).is_empty());
    }
}
