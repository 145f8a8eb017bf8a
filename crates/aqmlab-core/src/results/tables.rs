//! The results as tables of columns (what crosses the binding to Python): whole, or only the
//! rows and fields asked for.

use super::{LinkFlowResult, Results};
use crate::columns::{ColumnError, Table};

/// Which rows and fields of a table to build: all of them by default. A report of the first 50
/// of 100,000 flows builds 50 rows, and finding the busiest links builds two columns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Selection<'a> {
    /// Row indices, in the order wanted (each below the table's row count).
    pub rows: Option<&'a [usize]>,
    /// The fields kept (a map field by its name: all its `field.key` columns).
    pub fields: Option<&'a [&'a str]>,
}

impl Results {
    /// The rows of the table named `table` ("flows", "links", "link_flows", "connections").
    pub fn rows(&self, table: &str) -> Option<usize> {
        Some(match table {
            "flows" => self.flows.len(),
            "links" => self.links.len(),
            "link_flows" => self.links.iter().map(|l| l.flows.len()).sum(),
            "connections" => self.connections.len(),
            _ => return None,
        })
    }

    /// The table named `table` ("flows", "links", "link_flows", "connections"), as much of it
    /// as `selection` asks for; None for an unknown name.
    pub fn table(&self, table: &str, selection: &Selection) -> Option<Result<Table, ColumnError>> {
        let n = self.rows(table)?;
        if let Some(bad) = selection.rows.and_then(|rows| rows.iter().find(|&&r| r >= n)) {
            return Some(Err(ColumnError(format!("row {bad} of a table of {n} rows"))));
        }
        let mut wanted: Box<dyn Iterator<Item = usize>> = match selection.rows {
            Some(rows) => Box::new(rows.iter().copied()),
            None => Box::new(0..n),
        };
        let mut t = Table::with_rows(selection.rows.map_or(n, <[usize]>::len)).keeping(selection.fields);
        let built: Result<(), ColumnError> = match table {
            "flows" => wanted.try_for_each(|i| t.push(&[], &self.flows[i], &[])),
            "links" => wanted.try_for_each(|i| t.push(&[], &self.links[i], &["flows"])),
            "connections" => wanted.try_for_each(|i| t.push(&[], &self.connections[i], &[])),
            _ => {
                let pairs: Vec<(&str, &LinkFlowResult)> =
                    self.links.iter().flat_map(|l| l.flows.iter().map(move |f| (l.name.as_str(), f))).collect();
                wanted.try_for_each(|i| t.push(&[("link", pairs[i].0)], pairs[i].1, &[]))
            }
        };
        Some(built.map(|()| t))
    }

    /// The link directions that carried packets (any arrival), and the `n` of them with the
    /// highest utilization, in scenario order (ties go to the earlier direction): what a report
    /// of a large run lists, found without building a table of 200,000 rows.
    pub fn busiest_links(&self, n: usize) -> (usize, Vec<usize>) {
        let mut busy: Vec<usize> = (0..self.links.len()).filter(|&i| self.links[i].arrivals > 0).collect();
        let count = busy.len();
        if busy.len() > n {
            let by_use =
                |a: &usize, b: &usize| self.links[*b].utilization.total_cmp(&self.links[*a].utilization).then(a.cmp(b));
            if n > 0 {
                busy.select_nth_unstable_by(n - 1, by_use);
            }
            busy.truncate(n);
            busy.sort_unstable();
        }
        (count, busy)
    }

    /// The flows, one row each, as columns (the JSON's `flows`; maps spread into `field.key`).
    pub fn flow_table(&self) -> Result<Table, ColumnError> {
        self.table("flows", &Selection::default()).expect("a table")
    }

    /// The link directions, one row each (the JSON's `links` without their per-flow lists).
    pub fn link_table(&self) -> Result<Table, ColumnError> {
        self.table("links", &Selection::default()).expect("a table")
    }

    /// One row per connection of a workload.
    pub fn connection_table(&self) -> Result<Table, ColumnError> {
        self.table("connections", &Selection::default()).expect("a table")
    }

    /// One row per (link direction, flow crossing it), the link's name first.
    pub fn link_flow_table(&self) -> Result<Table, ColumnError> {
        self.table("link_flows", &Selection::default()).expect("a table")
    }
}
