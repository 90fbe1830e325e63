import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateScannerCommand,
  ListPackagesCommand,
  ListScannersCommand,
  ListScannerVersionsCommand,
  ScannerRefCommand,
  ScannerSubjects,
  ScannerVersionRefCommand,
  UpdateScannerCommand,
  UpdateScannerVersionCommand,
} from '@bastion/contracts';
import { ScannerService } from './scanner.service';

@Controller()
export class ScannerController {
  constructor(private readonly scanners: ScannerService) {}

  @MessagePattern(ScannerSubjects.create)
  create(@Payload() cmd: CreateScannerCommand) {
    return this.scanners.create(cmd);
  }

  @MessagePattern(ScannerSubjects.list)
  list(@Payload() cmd: ListScannersCommand) {
    return this.scanners.list(cmd);
  }

  @MessagePattern(ScannerSubjects.get)
  get(@Payload() cmd: ScannerRefCommand) {
    return this.scanners.get(cmd);
  }

  @MessagePattern(ScannerSubjects.update)
  update(@Payload() cmd: UpdateScannerCommand) {
    return this.scanners.update(cmd);
  }

  @MessagePattern(ScannerSubjects.delete)
  delete(@Payload() cmd: ScannerRefCommand) {
    return this.scanners.delete(cmd);
  }

  @MessagePattern(ScannerSubjects.listVersions)
  listVersions(@Payload() cmd: ListScannerVersionsCommand) {
    return this.scanners.listVersions(cmd);
  }

  @MessagePattern(ScannerSubjects.getVersion)
  getVersion(@Payload() cmd: ScannerVersionRefCommand) {
    return this.scanners.getVersion(cmd);
  }

  @MessagePattern(ScannerSubjects.updateVersion)
  updateVersion(@Payload() cmd: UpdateScannerVersionCommand) {
    return this.scanners.updateVersion(cmd);
  }

  @MessagePattern(ScannerSubjects.listPackages)
  listPackages(@Payload() cmd: ListPackagesCommand) {
    return this.scanners.listPackages(cmd);
  }
}
