// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import sparkbloom.catalyst.FileColumns
import sparkbloom.predicate.PointPredicate

/**
 * Where an Iceberg table's columns are in its data files: by field id, as Iceberg's reader
 * finds them. A rename keeps the id (old files keep the old name), and a column dropped and
 * added again under the same name gets a new one, so names would ask the wrong column's
 * filter. A file without the id (a column added later, or a file imported without ids) is not
 * judged for that column: Iceberg fills such a column from the partition, a default or a name
 * mapping, never a reason to skip.
 *
 * @param fieldIds the field id of each primitive column the scan reads, by its path of names
 *                 from the top (through structs only: a list's or map's values are not judged)
 */
private[sparkbloom] final case class IcebergColumns(fieldIds: Map[Seq[String], Int]) extends FileColumns {
  def resolve(predicate: PointPredicate): Option[PointPredicate] =
    PointPredicate.resolved(predicate)(in =>
      fieldIds.get(in.path).map(id => in.copy(fieldId = Some(id), locatedById = true)))
}
